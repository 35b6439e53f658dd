package dev.peregrine.cli;

import dev.peregrine.cli.testing.CliRun;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code mold listen --fanout} and {@code fanout tail}: refusals in one line, and the feed end to end. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FanoutCommandTest {
    @TempDir
    Path temp;

    private final List<Process> children = new ArrayList<>();

    @Test
    void shouldRefuseAMissingLogABadNameAndABadStartInOneLine() {
        final Path dir = temp.resolve("logs");
        for (final String[] args : new String[][] {
            {"fanout", "tail", "nothing-here", "--dir", dir.toString()},
            {"fanout", "tail"},
            {"fanout", "tail", "../up", "--dir", dir.toString()},
            {"fanout", "tail", "feed", "--from", "sideways"},
            {"fanout", "tail", "feed", "--count", "-1"},
            {"mold", "listen", "--fanout", ".hidden"}}) {
            final CliRun cli = CliRun.execute(args);
            assertThat(cli.code()).as(String.join(" ", args) + ": " + cli.err()).isEqualTo(2);
            assertThat(cli.err().strip().lines().count()).as(cli.err()).isEqualTo(1);
            assertThat(cli.err()).doesNotContain("\tat ");
        }
        assertThat(CliRun.execute("fanout", "tail", "nothing-here", "--dir", dir.toString()).err())
            .contains("no broadcast log nothing-here in " + dir);
        assertThat(CliRun.execute("fanout", "tail", "feed", "--from", "sideways").err())
            .contains("'sideways' is not a start; expected live or oldest");
    }

    @Test
    void shouldRefuseAFanoutCapacityThatIsNotAPowerOfTwoInOneLine() {
        final CliRun cli = CliRun.execute("mold", "listen", "--group", "none", "--fanout", "feed", "--fanout-dir",
            temp.resolve("logs").toString(), "--fanout-capacity", "1000");

        assertThat(cli.code()).isEqualTo(2);
        assertThat(cli.err().lines().toList()).singleElement().asString()
            .contains("--fanout-capacity", "1000 records is not a power of two", "e.g. 512 or 1024");
        assertThat(temp.resolve("logs").resolve("feed.bcast")).doesNotExist();
    }

    @Test
    @Timeout(60)
    void shouldMakeTheLogWithTheCapacityAndMaxRecordGiven() throws IOException {
        final Path dir = temp.resolve("logs");
        final CliRun cli = CliRun.execute("mold", "listen", "--group", "none", "--port", "" + freePort(),
            "--request-port", "" + freePort(), "--seconds", "1", "--fanout", "feed", "--fanout-dir", dir.toString(),
            "--fanout-capacity", "64", "--fanout-max-record", "100");

        assertThat(cli.code()).as(cli.err()).isZero();
        // the layout's own arithmetic: header and table of 64 readers, then 64 slots of 16 + 100 rounded up to 64
        final long expected = 640 + 128L * 64 + 64L * 128;
        assertThat(Files.size(dir.resolve("feed.bcast"))).isEqualTo(expected);
    }

    private Process start(final String... args) throws IOException {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElseThrow());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("-XX:AutoBoxCacheMax=65536"); // as the launcher: SelectorBoxing
        command.add("-Xmx128m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(Main.class.getName());
        command.addAll(List.of(args));
        final Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        children.add(child);
        return child;
    }

    private static int freePort() throws IOException {
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            return socket.getLocalPort();
        }
    }

    private static BufferedReader lines(final Process child) {
        return new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
    }

    private static String finish(final Process child, final BufferedReader out) throws Exception {
        final StringBuilder text = new StringBuilder();
        for (String line = out.readLine(); line != null; line = out.readLine()) {
            text.append(line).append('\n');
        }
        assertThat(child.waitFor(90, TimeUnit.SECONDS)).as("ended").isTrue();
        return text.toString();
    }

    @Tag("slow")
    @Test
    void shouldCarryAFeedThroughListenFanoutToTwoVerifyingTails() throws Exception {
        final Path dir = temp.resolve("logs");
        final int port = freePort();
        final int requestPort = freePort();
        final String count = "3000";
        try {
            final Process listen = start("mold", "listen", "--group", "none", "--port", "" + port, "--request-port",
                "" + requestPort, "--start", "1", "--seconds", "60", "--fanout", "feed", "--fanout-dir", dir.toString());
            final Path log = dir.resolve("feed.bcast");
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.exists(log) && listen.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(20); // waits for an event (the file), a deadline only fails a hung start
            }
            assertThat(log).exists();
            final Process first = start("fanout", "tail", "feed", "--dir", dir.toString(), "--count", count, "--verify",
                "--seconds", "80");
            final Process second = start("fanout", "tail", "feed", "--dir", dir.toString(), "--count", count,
                "--verify", "--seconds", "80", "--from", "live");
            final BufferedReader firstLines = lines(first);
            final BufferedReader secondLines = lines(second);
            assertThat(firstLines.readLine()).startsWith("attached to " + log + " as reader tail-").contains("DROP");
            assertThat(secondLines.readLine()).startsWith("attached to " + log).endsWith("from live)");
            final Process publish = start("mold", "publish", "--group", "127.0.0.1", "--port", "" + port,
                "--request-port", "" + requestPort, "--count", count, "--rate", "5000", "--loss", "0.05",
                "--linger", "2s", "--session", "FANOUT");
            final String firstOut = finish(first, firstLines);
            final String secondOut = finish(second, secondLines);
            assertThat(first.exitValue()).as(firstOut).isZero();
            assertThat(second.exitValue()).as(secondOut).isZero();
            assertThat(firstOut).contains("verify ok: " + count + " messages, every sequence once, in order");
            assertThat(secondOut).contains("verify ok: " + count + " messages");
            assertThat(firstOut).contains("lastSequence=" + count);
            finish(publish, lines(publish));
            final String listenOut = finish(listen, lines(listen));
            assertThat(listenOut).contains("fan-out into broadcast log " + log);
        } finally {
            children.forEach(Process::destroyForcibly);
        }
    }
}
