package dev.peregrine.cli;

import dev.peregrine.reactor.Reactor;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code echo --log FILE [--log-messages]} run in process: a client connects, exchanges and leaves; the file says so. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EchoLogTest {
    private static final long WAIT_LIMIT_NS = 60_000_000_000L;
    private static final Pattern LINE = Pattern.compile("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{9}Z (DEBUG|INFO|WARN|ERROR) "
        + "([A-Z_]+) channel=-?\\d+ a=-?\\d+ b=-?\\d+(?: length=\\d+ (?:data|text)=\"[^\"\\\\]*(?:\\\\.[^\"\\\\]*)*\"( truncated)?)?");

    @TempDir
    Path dir;

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
    }

    /** Runs echo with the arguments, exchanges two lines, leaves, and returns the file's lines once it logged the close. */
    private List<String> runAndExchange(final Path file, final String... more) throws Exception {
        final int port = freePort();
        final CommandLine commandLine = Main.commandLine();
        final EchoCommand echo = commandLine.getSubcommands().get("echo").getCommand();
        final AtomicReference<Reactor> reactor = new AtomicReference<>();
        echo.running = reactor::set;
        final StringWriter err = new StringWriter();
        commandLine.setErr(new PrintWriter(err, true));
        final String[] args = new String[6 + more.length];
        System.arraycopy(new String[] {"echo", "--host", "127.0.0.1", "--port", Integer.toString(port), "--log"}, 0, args, 0, 6);
        System.arraycopy(more, 0, args, 6, more.length);
        args[6] = file.toString();
        final AtomicInteger code = new AtomicInteger(-1);
        final Thread server = new Thread(() -> code.set(commandLine.execute(args)), "echo");
        server.start();
        final long deadline = System.nanoTime() + WAIT_LIMIT_NS;
        while (reactor.get() == null) {
            assertThat(server.isAlive()).as("echo stopped: " + err).isTrue();
            assertThat(System.nanoTime()).as("echo never listened").isLessThan(deadline);
            Thread.onSpinWait();
        }
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
            final OutputStream out = client.getOutputStream();
            final BufferedReader in = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.US_ASCII));
            out.write("hello\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(in.readLine()).isEqualTo("hello");
            out.write("a \"quoted\" line\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(in.readLine()).isEqualTo("a \"quoted\" line");
        }
        // the close is logged after everything else of the connection: the marker that the file is complete
        List<String> lines = List.of();
        while (lines.stream().noneMatch(line -> line.contains(" CLOSED "))) {
            assertThat(System.nanoTime()).as("no CLOSED line in " + lines).isLessThan(deadline);
            Thread.sleep(10);
            lines = Files.exists(file) ? Files.readAllLines(file, StandardCharsets.US_ASCII) : List.of();
        }
        reactor.get().close();
        server.join(WAIT_LIMIT_NS / 1_000_000L);
        assertThat(code.get()).as(err.toString()).isZero();
        final List<String> all = Files.readAllLines(file, StandardCharsets.US_ASCII);
        for (final String line : all) {
            assertThat(line).matches(LINE);
        }
        return all;
    }

    private static List<String> events(final List<String> lines) {
        return lines.stream().map(line -> line.split(" ")[2]).toList();
    }

    @Test
    void shouldLogEveryConnectionEventAndEveryMessageWithLogMessages() throws Exception {
        final Path file = dir.resolve("echo.log");
        final List<String> lines = runAndExchange(file, "FILE", "--log-messages");

        assertThat(events(lines)).containsExactly("LISTENING", "ACCEPTED", "MESSAGE_IN", "MESSAGE_IN", "CLOSED");
        assertThat(lines.get(2)).endsWith(" DEBUG MESSAGE_IN channel=" + channelOf(lines.get(1)) + " a=0 b=0 length=5 data=\"hello\"")
            .contains(" DEBUG ");
        assertThat(lines.get(3)).endsWith(" length=15 data=\"a \\\"quoted\\\" line\"");
        assertThat(lines.get(4)).contains(" INFO CLOSED channel=" + channelOf(lines.get(1)) + " a=0 ", "text=\"BY_PEER: ");
        assertThat(lines.get(1)).contains(" text=\"/127.0.0.1:");
    }

    @Test
    void shouldLogConnectionEventsButNoMessageWithoutLogMessages() throws Exception {
        final Path file = dir.resolve("events.log");
        final List<String> lines = runAndExchange(file, "FILE");

        assertThat(events(lines)).containsExactly("LISTENING", "ACCEPTED", "CLOSED");
    }

    @Test
    void shouldRefuseLogMessagesWithoutLogInOneLineWithExitCode2() {
        final CommandLine commandLine = Main.commandLine();
        final StringWriter err = new StringWriter();
        commandLine.setErr(new PrintWriter(err, true));
        final int code = commandLine.execute("echo", "--port", "1", "--log-messages");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString().lines().toList()).hasSize(1);
        assertThat(err.toString()).contains("'--log-messages'", "without --log");

        final CommandLine unwritable = Main.commandLine();
        final StringWriter why = new StringWriter();
        unwritable.setErr(new PrintWriter(why, true));
        assertThat(unwritable.execute("echo", "--port", "1", "--log", dir.resolve("no-such-folder/echo.log").toString()))
            .isEqualTo(2);
        assertThat(why.toString().lines().toList()).hasSize(1);
        assertThat(why.toString()).contains("'--log'", "no-such-folder", "does not exist");
    }

    private static String channelOf(final String line) {
        return line.replaceAll(".* channel=(-?\\d+) .*", "$1");
    }
}
