package dev.peregrine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.peregrine.cli.testing.CliRun;
import dev.peregrine.bench.testing.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Jocket's scenario, {@code bench pingpong --size 4 --reply-size 1024}: a 4-byte ping carries its sequence's low 32
 * bits and the client keeps the send time. Run on every transport that runs in this JVM (Aeron's need JVM options
 * of their own and are covered by the peers' conformance suite), and with the responder in a second JVM; a size
 * below 4 is refused, and the commands with
 * many messages in flight keep their 16 bytes, each with one line and exit code 2.
 */
@Timeout(240)
class PingPongFourByteTest {
    /** Every transport of {@code bench transports} but Aeron's (a second JVM with their options). */
    private static final List<String> IN_PROCESS = List.of("peregrine-tcp", "peregrine-udp", "peregrine-shm",
        "peregrine-shm-packed", "peregrine-shm-futex", "peregrine-shm-backoff", "peregrine-mold", "socket", "nio",
        "nio-selector", "netty", "nassau-mold", "peregrine-soup", "nassau-soup");
    private static final int MESSAGES = 300;

    @TempDir
    Path folder;

    @Test
    void shouldAnswerFourBytePingsWithKilobytePongsOnEveryTransportThatRunsInProcess() throws Exception {
        final Path json = folder.resolve("jocket.json");

        final CliRun cli = CliRun.execute("bench", "pingpong", "--transport", String.join(",", IN_PROCESS), "--size",
            "4", "--reply-size", "1024", "--messages", Integer.toString(MESSAGES), "--warmup", "100", "--in-process",
            "--no-busy-spin", "--quiet", "--json", json.toString());
        final String out = cli.out();

        assertThat(cli.code()).as(out + cli.err()).isZero();
        final List<JsonNode> runs = Json.read(json).valueStream().toList();
        assertThat(runs).extracting(r -> r.get("transport").asText()).containsExactlyElementsOf(IN_PROCESS);
        // ok means every pong was 1024 bytes long and carried the ping's sequence: the loop checks each one
        assertThat(runs).allSatisfy(r -> {
            assertThat(r.get("status").asText()).as(r.toString()).isEqualTo("ok");
            assertThat(r.get("size").asInt()).isEqualTo(4);
            assertThat(r.get("reply_size").asInt()).isEqualTo(1024);
            assertThat(r.get("messages").asLong()).isEqualTo(MESSAGES);
        });
    }

    @Test
    void shouldAnswerFourBytePingsFromAResponderInASecondJvm() throws Exception {
        final Path json = folder.resolve("child.json");

        // the responder JVM (ResponderChild) takes --size 4 as bench pingpong does
        final CliRun cli = CliRun.execute("bench", "pingpong", "--transport", "peregrine-shm", "--size", "4",
            "--reply-size", "1024", "--messages", Integer.toString(MESSAGES), "--warmup", "100", "--no-busy-spin",
            "--quiet", "--json", json.toString());
        final String out = cli.out();

        assertThat(cli.code()).as(out + cli.err()).isZero();
        final JsonNode result = Json.read(json);
        assertThat(result.get("transport").asText()).isEqualTo("peregrine-shm");
        assertThat(result.get("status").asText()).isEqualTo("ok");
        assertThat(result.get("reply_size").asInt()).isEqualTo(1024);
        assertThat(result.get("messages").asLong()).isEqualTo(MESSAGES);
    }

    @Test
    void shouldAnswerFourBytePingsAtAFixedRateWithSeveralInFlight() throws Exception {
        final Path json = folder.resolve("rate.json");

        final CliRun cli = CliRun.execute("bench", "pingpong", "--transport", "peregrine-tcp", "--size", "4",
            "--reply-size", "1024", "--rate", "20000", "--messages", "2000", "--warmup", "200", "--in-process",
            "--no-busy-spin", "--quiet", "--json", json.toString());
        final String out = cli.out();

        assertThat(cli.code()).as(out + cli.err()).isZero();
        final JsonNode result = Json.read(json);
        assertThat(result.get("status").asText()).isEqualTo("ok");
        assertThat(result.get("messages").asLong()).isEqualTo(2000);
    }

    @Test
    void shouldRefuseAPingOrPongShorterThanFourBytesWithOneLineAndExitCode2() {
        CliRun cli = CliRun.execute("bench", "pingpong", "--transport", "peregrine-shm", "--size", "3",
            "--reply-size", "1024");
        assertThat(cli.code()).isEqualTo(2);
        assertThat(cli.err().strip().lines().count()).as(cli.err()).isEqualTo(1);
        assertThat(cli.err()).contains("--size", "3", "4 to 1048576").doesNotContain("\tat ");

        cli = CliRun.execute("bench", "pingpong", "--transport", "peregrine-shm", "--size", "4", "--reply-size", "3");
        assertThat(cli.code()).isEqualTo(2);
        assertThat(cli.err().strip().lines().count()).as(cli.err()).isEqualTo(1);
        assertThat(cli.err()).contains("--reply-size", "3", "4 to 1048576").doesNotContain("\tat ");
    }

    @Test
    void shouldKeepSixteenBytesForTheCommandsWithManyMessagesInFlightAndSaySo() {
        for (final List<String> args : List.of(List.of("bench", "load", "--transport", "peregrine-tcp", "--size", "4"),
            List.of("bench", "throughput", "--transport", "peregrine-tcp", "--size", "4"),
            List.of("bench", "compare", "--size", "4"),
            List.of("bench", "compare", "--load-size", "4"))) {
            final CliRun cli = CliRun.execute(args.toArray(String[]::new));

            assertThat(cli.code()).as(args.toString()).isEqualTo(2);
            assertThat(cli.err().strip().lines().count()).as(cli.err()).isEqualTo(1);
            assertThat(cli.err()).as(args.toString()).contains(args.get(args.size() - 2), "4 is out of range",
                "16 to 1048576", "many messages in flight carry the full 64-bit sequence",
                "bench pingpong accepts sizes from 4").doesNotContain("\tat ");
        }
    }
}
