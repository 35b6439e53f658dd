package dev.peregrine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.peregrine.cli.testing.CliRun;
import dev.peregrine.bench.testing.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bench pingpong --reply-size}: a 16-byte ping answered by a 1024-byte reply, whose length every client
 * checks, on Peregrine's TCP and shared memory and on a peer, with the responders in a second JVM.
 */
@Timeout(240)
class PingPongReplySizeTest {
    @TempDir
    Path folder;

    @Test
    void shouldAnswerSixteenBytePingsWithKilobyteRepliesOnEveryTransportAsked() throws Exception {
        final Path json = folder.resolve("p.json");

        final CliRun cli = CliRun.execute("bench", "pingpong", "--transport", "peregrine-tcp,peregrine-shm,socket",
            "--size", "16", "--reply-size", "1024", "--messages", "2000", "--warmup", "500", "--no-busy-spin",
            "--quiet", "--json", json.toString());
        final String out = cli.out();

        assertThat(cli.code()).as(out + cli.err()).isZero();
        assertThat(out).contains("size=16 reply-size=1024").containsPattern("peregrine-tcp \\* +16/1024 ")
            .containsPattern("peregrine-shm \\* +16/1024 ").containsPattern("socket +16/1024 ");
        final List<JsonNode> runs = Json.read(json).valueStream().toList();
        assertThat(runs).extracting(r -> r.get("transport").asText()).containsExactly("peregrine-tcp", "peregrine-shm", "socket");
        // ok means every reply carried the sequence sent and was 1024 bytes long: the clients check both
        assertThat(runs).allSatisfy(r -> {
            assertThat(r.get("size").asInt()).isEqualTo(16);
            assertThat(r.get("reply_size").asInt()).isEqualTo(1024);
            assertThat(r.get("messages").asLong()).isEqualTo(2000);
            assertThat(r.get("status").asText()).isEqualTo("ok");
        });
    }

    @Test
    void shouldRefuseATransportThatCannotAnswerWithAnotherSize() {
        final CliRun cli = CliRun.execute("bench", "pingpong", "--transport", "test-mem", "--size", "32",
            "--reply-size", "64", "--messages", "100", "--warmup", "10", "--in-process", "--no-busy-spin", "--quiet");

        assertThat(cli.code()).isEqualTo(2); // nothing else asked for: refused before anything runs (UnavailableUpFrontTest)
        assertThat(cli.err()).contains("test-mem cannot answer with a reply of another size than the message"
            + " (--reply-size=64, --size=32)");
    }

    @Test
    void shouldRefuseASizeThatCannotCarryTheSequenceNamingTheOption() {
        CliRun cli = CliRun.execute("bench", "pingpong", "--transport", "peregrine-tcp", "--size", "16",
            "--reply-size", "3");
        assertThat(cli.code()).isEqualTo(2);
        assertThat(cli.err()).contains("--reply-size", "3", "4 to").doesNotContain("\tat ");

        cli = CliRun.execute("bench", "pingpong", "--transport", "peregrine-tcp", "--size", "3");
        assertThat(cli.code()).isEqualTo(2);
        assertThat(cli.err()).contains("--size", "3", "4 to").doesNotContain("\tat ");
    }

    @Test
    void shouldLeaveTheReplySizeOutOfTheJsonOfAnEcho() throws Exception {
        final Path json = folder.resolve("e.json");

        final CliRun cli = CliRun.execute("bench", "pingpong", "--transport", "test-mem", "--size", "32",
            "--reply-size", "32", "--messages", "100", "--warmup", "10", "--in-process", "--no-busy-spin", "--quiet",
            "--json", json.toString());

        assertThat(cli.code()).isZero();
        final JsonNode run = Json.read(json);
        assertThat(run.has("reply_size")).isFalse();
        assertThat(run.get("size").asInt()).isEqualTo(32);
    }
}
