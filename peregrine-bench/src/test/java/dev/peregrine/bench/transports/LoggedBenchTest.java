package dev.peregrine.bench.transports;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code peregrine-tcp[logged]}: the responder echoes every sequence in order and its log gets a line per message
 * received and per connection event, in the run's directory, deleted when the responder stops; only
 * {@code peregrine-tcp} has the variant.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LoggedBenchTest {
    private static final int MESSAGES = 500;

    @TempDir
    Path directory;

    @Test
    void shouldEchoEverySequenceAndLogEveryMessageToAFileDeletedAtTheEnd() throws Exception {
        final int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        final BenchConfig config = new BenchConfig("127.0.0.1", port, 64, directory, false);
        final LoggedBench bench = (LoggedBench)Transports.byName("peregrine-tcp[logged]");
        assertThat(bench.name()).isEqualTo("peregrine-tcp[logged]");
        try (Responder responder = bench.startResponder(config); PingClient client = bench.connect(config)) {
            for (long sequence = 0; sequence < MESSAGES; sequence++) {
                client.send(sequence);
                assertThat(client.receive()).isEqualTo(sequence);
            }
            final Path log = onlyLog();
            // the logger's thread writes when its ring runs empty: wait for it, a deadline only for a hang
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            List<String> lines = Files.readAllLines(log);
            while (count(lines, "MESSAGE_IN") < MESSAGES && System.nanoTime() < deadline) {
                Thread.sleep(10);
                lines = Files.readAllLines(log);
            }
            assertThat(count(lines, "MESSAGE_IN")).as(String.join("\n", lines)).isEqualTo(MESSAGES);
            assertThat(count(lines, "ACCEPTED")).isEqualTo(1);
            assertThat(responder.messages()).isEqualTo(MESSAGES);
        }
        try (Stream<Path> left = Files.list(directory)) {
            assertThat(left.filter(p -> p.getFileName().toString().startsWith("peregrine-bench-logged-")))
                .as("the log is deleted when the responder stops").isEmpty();
        }
    }

    @Test
    void shouldRefuseATransportOtherThanPeregrineTcp() {
        assertThatThrownBy(() -> Transports.byName("peregrine-udp[logged]"))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("transport=peregrine-udp has no logged responder; only peregrine-tcp has one");
    }

    private Path onlyLog() throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            final List<Path> logs = files.filter(p -> p.getFileName().toString().startsWith("peregrine-bench-logged-"))
                .toList();
            assertThat(logs).hasSize(1);
            return logs.get(0);
        }
    }

    private static long count(final List<String> lines, final String event) {
        return lines.stream().filter(line -> line.contains(" " + event + " ")).count();
    }
}
