package dev.peregrine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.peregrine.cli.testing.CliRun;
import dev.peregrine.bench.testing.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(180)
class CompareCommandTest {
    @TempDir
    Path folder;

    /**
     * Runs the command line and checks its exit code: every run's outcome is decided by what it is given
     * (test-broken always fails, test-mem never does), so the code is exact.
     */
    private String run(final int expectedCode, final String... args) {
        final PrintStream saved = System.out;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            final int code = new CommandLine(Main.class).execute(args);
            assertThat(code).as(captured.toString(StandardCharsets.UTF_8)).isEqualTo(expectedCode);
        } finally {
            System.setOut(saved);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldCompareEveryTransportListingTheUnavailableAndTheFailed() throws Exception {
        final Path report = folder.resolve("r.html");
        final Path json = folder.resolve("r.json");

        final String out = run(1, "bench", "compare", "--transport", "test-mem,test-unavailable,test-broken",
            "--in-process", "--size", "32", "--messages", "3000", "--warmup", "1000", "--no-floor", "--quiet", "--no-busy-spin",
            "--report", report.toString(), "--json", json.toString());

        assertThat(out).contains("Ping-pong round trip in microseconds", "[tcp]", "[udp]", "[shm]",
            "test-unavailable", "needs more cores than this machine has", "test-broken", "connection refused by design");
        final String html = Files.readString(report);
        assertThat(html).contains("data-scenario=\"pingpong\" data-series=\"1\"", "data-transport=\"test-mem\"",
            "needs more cores than this machine has", "connection refused by design",
            "test-only in-memory rings &lt;between&gt; threads &amp; &quot;quotes&quot;");
        final JsonNode parsed = Json.read(json);
        assertThat(parsed.isObject()).isTrue();
        assertThat(parsed.get("transport").asText()).isEqualTo("test-mem");
        assertThat(parsed.get("messages").asLong()).isEqualTo(3000);
    }

    /** A run that failed makes the exit code 1, so a script sees it; a transport unavailable here does not. */
    @Test
    void shouldExitWithOneWhenARunFailedAndZeroWhenOneWasOnlyUnavailable() {
        final String[] common = {"--in-process", "--size", "32", "--messages", "500", "--warmup", "100", "--no-floor",
            "--quiet", "--no-busy-spin", "--report", folder.resolve("exit.html").toString()};
        final CliRun failed = CliRun.execute(concat(new String[] {"bench", "compare", "--transport", "test-mem,test-broken"},
            common));
        final CliRun unavailable = CliRun.execute(concat(new String[] {"bench", "compare", "--transport",
            "test-mem,test-unavailable"}, common));

        assertThat(failed.out()).contains("connection refused by design");
        assertThat(failed.code()).as(failed.out() + failed.err()).isEqualTo(1);
        assertThat(unavailable.out()).contains("needs more cores than this machine has");
        assertThat(unavailable.code()).as(unavailable.out() + unavailable.err()).isZero();
    }

    private static String[] concat(final String[] first, final String[] second) {
        final String[] both = java.util.Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }

    @Test
    void shouldRunTheFullSuiteInProcess() throws Exception {
        final Path report = folder.resolve("full.html");

        final String out = run(0, "bench", "compare", "--full", "--transport", "test-mem", "--in-process", "--size", "32",
            "--messages", "2000", "--warmup", "500", "--clients", "2", "--rates", "2000,5000", "--load-seconds", "0.5",
            "--throughput-seconds", "0.5", "--no-floor", "--quiet", "--no-busy-spin", "--report", report.toString());

        assertThat(out).contains("Load: concurrent clients", "Throughput: one way");
        final String html = Files.readString(report);
        // ping-pong by percentile; load p50, p99, p99.9 against rate; throughput bars; load by percentile per rate
        assertThat(html.split("<svg class=\"chart\" data-kind=\"percentiles\" data-scenario=\"pingpong\"", -1)).hasSize(2);
        assertThat(html.split("<svg class=\"chart\" data-kind=\"rate\" data-scenario=\"load\" data-series=\"1\"", -1))
            .hasSize(4);
        assertThat(html.split("<svg class=\"chart\" data-kind=\"bars\" data-scenario=\"throughput\" data-series=\"1\"", -1))
            .hasSize(2);
        assertThat(html.split("<svg class=\"chart\" data-kind=\"percentiles\" data-scenario=\"load\"", -1)).hasSize(3);
        assertThat(html).contains("no tcp-stream-c floor at this size").doesNotContain("class=\"floor\"");
        assertThat(out).contains("tcp-stream-c size=32: skipped: not run (--no-floor)");
    }

    @Test
    void shouldWritePingPongJsonAndHgrm() throws Exception {
        final Path json = folder.resolve("p.json");
        final Path hgrm = folder.resolve("p.hgrm");

        final String out = run(0, "bench", "pingpong", "--transport", "test-mem", "--in-process", "--size", "32,64",
            "--messages", "2000", "--warmup", "500", "--rate", "20000", "--quiet", "--no-busy-spin", "--json", json.toString(),
            "--hgrm", hgrm.toString());

        assertThat(out).contains("~ one way", "round trip", "rate=20000");
        final List<JsonNode> runs = Json.read(json).valueStream().toList();
        assertThat(runs).extracting(r -> r.get("size").asInt()).containsExactly(32, 64);
        assertThat(runs).allSatisfy(r -> assertThat(r.get("rate").asLong()).isEqualTo(20_000));
        final Path first = folder.resolve("p-pingpong-test-mem-32-r20000.hgrm");
        assertThat(Files.readString(first)).contains("Value     Percentile TotalCount 1/(1-Percentile)", "#[Max     =");
    }
}
