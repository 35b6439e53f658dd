package dev.peregrine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.peregrine.cli.testing.CliRun;
import dev.peregrine.bench.testing.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bench load --respond-every N} (AsyncTCP's high-rate scenario): the responder answers every Nth message,
 * in this JVM and in a responder JVM of its own; the JSON and the table name the rate sustained beside the rate
 * offered; a bad period is answered with one line and exit code 2.
 */
@Timeout(240)
class LoadRespondEveryTest {
    @TempDir
    Path folder;

    @Test
    void shouldRefuseAPeriodBelowOneWithOneLineAndExitCode2() {
        final CliRun cli = CliRun.execute("bench", "load", "--transport", "peregrine-tcp", "--respond-every", "0");

        assertThat(cli.code()).isEqualTo(2);
        assertThat(cli.err().strip().lines().count()).as(cli.err()).isEqualTo(1);
        assertThat(cli.err()).contains("--respond-every", "0").doesNotContain("\tat ");
    }

    @Test
    void shouldRefuseRespondEveryWithAThreadPerClientWithOneLineAndExitCode2() {
        final CliRun cli = CliRun.execute("bench", "load", "--transport", "peregrine-tcp", "--respond-every", "10",
            "--topology", "per-client", "--clients", "3");

        assertThat(cli.code()).isEqualTo(2);
        assertThat(cli.err().strip().lines().count()).as(cli.err()).isEqualTo(1);
        assertThat(cli.err()).contains("--respond-every=10", "--topology shared").doesNotContain("\tat ");
    }

    @Test
    void shouldMeasureTheAnsweredMessagesInProcessAndNameTheRateSustained() throws Exception {
        final Path json = folder.resolve("m.json");

        final CliRun cli = CliRun.execute("bench", "load", "--transport", "test-mem", "--clients", "1", "--rates",
            "20000", "--respond-every", "10", "--size", "24", "--seconds", "0.1", "--warmup-seconds", "0.05",
            "--in-process", "--no-busy-spin", "--quiet", "--json", json.toString());
        final String out = cli.out();

        final JsonNode run = Json.read(json);
        // 2000 messages numbered 1000 .. 2999 after 1000 of warm-up: the multiples of 10 among them, 200
        assertThat(run.get("messages").asLong()).as(out + cli.err()).isEqualTo(200);
        assertThat(run.get("rtt_ns").get("p50").asLong()).isPositive();
        assertThat(run.get("respond_every").asInt()).isEqualTo(10);
        assertThat(run.get("rate").asLong()).isEqualTo(20_000);
        final double sent = run.get("sent_rate").asDouble();
        assertThat(sent).isPositive().isLessThanOrEqualTo(20_000.0);
        // whether this machine kept up is not for a unit test to assert; that the status and exit code say which, it is
        assertThat(run.get("status").asText()).isEqualTo(sent >= 19_000 ? "ok" : "partial");
        assertThat(cli.code()).isEqualTo(sent >= 19_000 ? 0 : 1);
        // the summary's row: offered rate / period, then the rate sustained, which the row rounds from the exact
        // value and the JSON to one decimal: 19999.46 is 19999 in the row and 19999.5 in the JSON
        assertThat(out).containsPattern("test-mem +24 +1 +20000/10 +(" + (long)Math.floor(sent) + "|"
            + (long)Math.ceil(sent) + ") ");
    }

    @Test
    void shouldTellTheResponderJvmToAnswerEveryNthMessage() throws Exception {
        final Path json = folder.resolve("c.json");

        // a responder JVM that answered every message would fail the run: its client awaits message 10 after 0
        final CliRun cli = CliRun.execute("bench", "load", "--transport", "peregrine-tcp", "--clients", "1",
            "--rates", "20000", "--respond-every", "10", "--size", "24", "--seconds", "0.2", "--warmup-seconds",
            "0.05", "--no-busy-spin", "--quiet", "--json", json.toString());
        final String out = cli.out();

        final JsonNode run = Json.read(json);
        assertThat(run.get("status").asText()).as(out + cli.err()).isIn("ok", "partial");
        assertThat(run.get("note").isNull() || run.get("note").asText().startsWith("could not keep up: sustained "))
            .as(run.get("note").asText()).isTrue();
        // 4000 messages numbered 1000 .. 4999: 400 answered
        assertThat(run.get("messages").asLong()).isEqualTo(400);
        assertThat(run.get("respond_every").asInt()).isEqualTo(10);
    }
}
