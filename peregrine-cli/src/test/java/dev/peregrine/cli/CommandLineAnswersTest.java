package dev.peregrine.cli;

import dev.peregrine.testkit.Needs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Answers of the real command line (commands run): a port in use, a failure while running, the version. */
@Timeout(60)
class CommandLineAnswersTest {
    private record Outcome(int code, String out, String err) {
    }

    private static Outcome run(final CommandLine commandLine, final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        final int code = commandLine.execute(args);
        return new Outcome(code, out.toString(), err.toString());
    }

    @Test
    void shouldAnswerAPortInUseAsAUserErrorNamingThePort() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            final String port = Integer.toString(taken.getLocalPort());

            final PrintStream stdout = System.out;
            final ByteArrayOutputStream printed = new ByteArrayOutputStream();
            final Outcome outcome;
            System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
            try {
                outcome = run(Main.commandLine(), "echo", "--host", "127.0.0.1", "--port", port);
            } finally {
                System.setOut(stdout);
            }

            assertThat(printed.toString(StandardCharsets.UTF_8)).as("a server that never listened prints nothing but the error")
                .isEmpty();
            assertThat(outcome.code).as(outcome.err).isEqualTo(2);
            assertThat(outcome.err.lines().toList()).hasSize(1);
            assertThat(outcome.err).contains("'--port'", "127.0.0.1:" + port, "cannot be listened on", "in use")
                .doesNotContainPattern("(?m)^\\s*at ");
        }
    }

    @Test
    void shouldSayHowToTurnMulticastOnForAnInterfaceWithoutIt() throws Exception {
        NetworkInterface without = null;
        for (final NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (nif.isUp() && !nif.supportsMulticast()) {
                without = nif;
            }
        }
        Needs.configuration("an interface that is up without multicast", without != null,
            "every interface here that is up has multicast on: nothing to refuse");

        final Outcome outcome = run(Main.commandLine(), "mold", "listen", "--group", "239.1.1.1", "--interface",
            without.getName(), "--seconds", "1");

        assertThat(outcome.code).isEqualTo(2);
        assertThat(outcome.err.lines().toList()).hasSize(1);
        assertThat(outcome.err).contains("'--interface'", "ip link set " + without.getName() + " multicast on");
    }

    /** A command that fails while running, as a peer that cannot start would. */
    @Command(name = "failing")
    static final class Failing implements Callable<Integer> {
        @Option(names = Cli.VERBOSE, scope = ScopeType.INHERIT)
        boolean verbose;

        @Override
        public Integer call() {
            throw new IllegalStateException("the responder died", new java.io.IOException("connection reset"));
        }
    }

    @Test
    void shouldAnswerAFailureWhileRunningWithOneLineAndExitCode1AndTheTraceOnlyWithVerbose() {
        final Outcome quiet = run(Cli.configure(new CommandLine(new Failing())));
        assertThat(quiet.code).isEqualTo(1);
        assertThat(quiet.err.lines().toList()).containsExactly(
            "failing: the responder died (caused by IOException: connection reset) (--verbose for the stack trace)");

        final Outcome verbose = run(Cli.configure(new CommandLine(new Failing())), "--verbose");
        assertThat(verbose.code).isEqualTo(1);
        assertThat(verbose.err).startsWith("failing: the responder died").containsPattern("(?m)^\\s*at dev\\.peregrine");
    }

    @Test
    void shouldPrintTheVersionTheCommitItWasBuiltFromAndTheJdk() throws Exception {
        final Outcome outcome = run(Main.commandLine(), "--version");

        assertThat(outcome.code).isZero();
        final List<String> lines = outcome.out.lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).matches("peregrine \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
        assertThat(lines.get(2)).startsWith("JDK " + Runtime.version()).contains(System.getProperty("java.home"));
        final Path root = Path.of("..").toAbsolutePath().normalize();
        if (Files.exists(root.resolve(".git"))) { // a directory, or a file in a git worktree
            final Process git = new ProcessBuilder("git", "-C", root.toString(), "rev-parse", "HEAD").start();
            final String head = new String(git.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
            assertThat(git.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(lines.get(1)).startsWith("commit " + head);
        } else {
            assertThat(lines.get(1)).isEqualTo("commit unknown");
        }
    }
}
