package dev.peregrine.cli;

import dev.peregrine.testkit.Needs;
import dev.peregrine.cli.testing.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The command line's edges, as a new user meets them: a user error is one line naming the option and exit code 2
 * (a trailing comma, a count no run can hold, a word the parent command did not know, a re-request port that is
 * the feed's, a --dir that is a file); a failed write is exit code 1 naming the file; --version answers on every
 * subcommand.
 */
@Timeout(120)
class CommandLineEdgesTest {
    private static final String[] QUICK = {"--in-process", "--quiet", "--messages", "1000", "--warmup", "100"};

    @TempDir
    Path folder;

    /** The command and its options, then {@code quick}: short in-process runs. */
    private static String[] args(final String[] quick, final String... command) {
        final String[] all = new String[command.length + quick.length];
        System.arraycopy(command, 0, all, 0, command.length);
        System.arraycopy(quick, 0, all, command.length, quick.length);
        return all;
    }

    private static void assertUserError(final CliRun cli, final String... mentions) {
        assertThat(cli.code()).as(cli.out() + cli.err()).isEqualTo(2);
        assertThat(cli.err().strip().lines().count()).as(cli.err()).isEqualTo(1);
        assertThat(cli.err()).contains(mentions).doesNotContain("\tat ");
    }

    // picocli asks each subcommand for its own version: without one, --version printed nothing
    @Test
    void shouldPrintTheVersionOnEverySubcommand() {
        for (final String[] command : new String[][] {{"bench", "pingpong", "--version"}, {"mold", "publish", "-V"},
            {"stat", "--version"}, {"echo", "--version"}, {"bench", "transports", "--version"}}) {
            final CliRun cli = CliRun.execute(command);
            assertThat(cli.code()).isZero();
            assertThat(cli.out()).as(String.join(" ", command)).contains("peregrine");
        }
    }

    // picocli drops the empty item after a trailing comma silently, while it refuses ",32" and "32,,64"
    @Test
    void shouldRefuseATrailingCommaInSize() {
        assertUserError(CliRun.execute(args(QUICK, "bench", "pingpong", "--transport", "test-mem", "--size", "32,")),
            "--size");
    }

    @Test
    void shouldRefuseATrailingCommaInTransport() {
        assertUserError(CliRun.execute(args(QUICK, "bench", "pingpong", "--transport", "test-mem,", "--size", "32")),
            "--transport");
    }

    @Test
    void shouldRefuseAnEmptyCpuList() {
        assertUserError(CliRun.execute(args(QUICK, "bench", "pingpong", "--transport", "test-mem", "--size", "32",
            "--cpu", ",")), "--cpu");
    }

    // a count past 2^31 - 9 is no run's: refused up front, naming the option, not after other runs with exit 1
    @Test
    void shouldRefuseTooManyPingPongMessagesAsAUserError() {
        assertUserError(CliRun.execute("bench", "pingpong", "--transport", "test-mem", "--in-process", "--quiet",
            "--size", "32", "--warmup", "100", "--messages", "3000000000"), "--messages");
    }

    @Test
    void shouldRefuseTooManyThroughputWarmupMessagesAsAUserError() {
        assertUserError(CliRun.execute("bench", "throughput", "--transport", "test-mem", "--in-process", "--quiet",
            "--no-stream-floor", "--size", "32", "--messages", "1000", "--warmup", "3000000000"), "'--warmup'");
    }

    @Test
    void shouldRefuseALoadRateTimesSecondsBeyondWhatARunHoldsAsAUserError() {
        assertUserError(CliRun.execute("bench", "load", "--transport", "test-mem", "--in-process", "--quiet",
            "--clients", "1", "--size", "32", "--rates", "1000000000", "--seconds", "3", "--warmup-seconds", "0"),
            "--rates", "more than a run holds");
    }

    // a PrintStream keeps its write errors to itself: a write to /dev/full must not print "hgrm: /dev/full" and exit 0
    @Test
    void shouldFailWhenTheHistogramCannotBeWritten() {
        Needs.platform("/dev/full", Files.exists(Path.of("/dev/full")), "no /dev/full");
        final CliRun cli = CliRun.execute(args(QUICK, "bench", "pingpong", "--transport", "test-mem", "--size", "32",
            "--hgrm", "/dev/full"));
        assertThat(cli.code()).as(cli.out() + cli.err()).isEqualTo(1);
        assertThat(cli.err()).contains("/dev/full").doesNotContain("\tat ");
    }

    // the first mistake is named, not the required option the subcommand then missed
    @Test
    void shouldNameAnUnknownOptionBeforeTheSubcommand() {
        assertUserError(CliRun.execute("bench", "--bogus", "pingpong"), "--bogus");
    }

    @Test
    void shouldNameAnUnknownWordBeforeTheSubcommand() {
        assertUserError(CliRun.execute("bench", "foo", "pingpong"), "foo");
    }

    // with the feed's port as its re-request port, a publisher sent its feed to its own re-request server
    @Test
    void shouldRefuseARequestPortThatIsTheFeedPort() throws IOException {
        final int port;
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            port = socket.getLocalPort();
        }
        assertUserError(CliRun.execute("mold", "publish", "--group", "127.0.0.1", "--port", "" + port,
            "--request-port", "" + port, "--count", "1"), "--request-port");
    }

    // the store is mapped and written: any other file (a mistyped path, /etc/passwd) was truncated and overwritten
    @Test
    void shouldRefuseAStoreThatHoldsSomethingElseAndLeaveTheFileAlone() throws IOException {
        final Path file = Files.writeString(folder.resolve("notes.txt"), "precious");
        final int port;
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            port = socket.getLocalPort();
        }
        assertUserError(CliRun.execute("mold", "publish", "--group", "127.0.0.1", "--port", "" + port, "--count", "1",
            "--store", file.toString()), "--store", file.toString(), "not a MoldUDP64 message store");
        assertThat(Files.readString(file)).isEqualTo("precious");
    }

    // a missing --dir is a folder no process has made yet; a file is a mistake
    @Test
    void shouldRefuseAStatDirThatIsAFile() throws IOException {
        final Path file = Files.writeString(folder.resolve("not-a-folder"), "x");
        assertUserError(CliRun.execute("stat", "--dir", file.toString()), "--dir");
    }
}
