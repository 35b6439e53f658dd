package dev.peregrine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.peregrine.bench.testing.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bench throughput} for real: Peregrine's TCP and a peer, two rounds each, alternating with a stand-in for
 * the C stream floor, a fraction of a second per run.
 */
@Timeout(180)
class ThroughputCommandTest {
    @TempDir
    Path folder;

    private int code;

    private String run(final String... args) {
        final PrintStream saved = System.out;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            code = Main.commandLine().execute(args); // as ./peregrine runs it: with every check
        } finally {
            System.setOut(saved);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldRunTheFloorAndTheTransportsAlternatelyAndReportTheMedianOfEachRow() throws Exception {
        // the stand-in floor measures 1 000 000 frames/s in its first round and 3 000 000 in its second: the median
        // of two rounds is their mean, 2 000 000, which no single round printed
        final Path log = folder.resolve("floor.log");
        final Path floor = folder.resolve("stream.sh");
        Files.writeString(floor, "#!/bin/sh\necho \"run $1\" >> '" + log + "'\n"
            + "if [ \"$(wc -l < '" + log + "')\" -eq 1 ]; then f=1000000; else f=3000000; fi\n"
            + "echo \"tcp-stream-c size=$1 frames/s=$f bytes/s=$(( f * ($1 + 4) ))\"\n");
        Files.setPosixFilePermissions(floor, PosixFilePermissions.fromString("rwx------"));
        final Path json = folder.resolve("t.json");

        final String out = run("bench", "throughput", "--transport", "peregrine-tcp,netty", "--size", "32",
            "--rounds", "2", "--batch", "64", "--warmup-seconds", "0.2", "--seconds", "0.3", "--warmup", "1000",
            "--in-process", "--no-busy-spin", "--quiet", "--stream-floor", floor.toString(), "--json", json.toString());

        assertThat(code).as(out).isZero();
        assertThat(out).contains("round 1 of 2", "round 2 of 2", "batches of 64 messages");
        assertThat(Files.readAllLines(log)).containsExactly("run 32", "run 32");
        // median 2000000 msg/s, range 1000000 - 3000000, 2e6 x 32 B = 64.0 MB/s, and the floor divided by itself
        assertThat(out).containsPattern("(?m)^\\s*tcp-stream-c \\(C\\) +32 +2 +2000000 +1000000 - 3000000 +64\\.0 +1\\.00x +floor\\s*$");
        final List<JsonNode> rows = Json.read(json).valueStream().toList();
        assertThat(rows).extracting(r -> r.get("transport").asText()).containsExactly("tcp-stream-c", "peregrine-tcp", "netty");
        assertThat(rows).allSatisfy(r -> {
            assertThat(r.get("rounds").asInt()).isEqualTo(2);
            assertThat(r.get("status").asText()).isEqualTo("ok");
        });
        final JsonNode floorRow = rows.get(0);
        assertThat(floorRow.get("throughput_msgs_per_s").asDouble()).isEqualTo(2_000_000.0);
        assertThat(floorRow.get("throughput_msgs_per_s_min").asDouble()).isEqualTo(1_000_000.0);
        assertThat(floorRow.get("throughput_msgs_per_s_max").asDouble()).isEqualTo(3_000_000.0);
        assertThat(floorRow.get("bytes_per_s").asDouble()).isEqualTo(64_000_000.0);
        assertThat(floorRow.get("ratio_to_tcp_stream_c").asDouble()).isEqualTo(1.0);
        for (final JsonNode r : rows.subList(1, 3)) {
            final double median = r.get("throughput_msgs_per_s").asDouble();
            final double min = r.get("throughput_msgs_per_s_min").asDouble();
            final double max = r.get("throughput_msgs_per_s_max").asDouble();
            assertThat(min).isPositive().isLessThanOrEqualTo(median);
            assertThat(max).isGreaterThanOrEqualTo(median);
            // two rounds: the median is the mean of the two, which are the min and the max
            assertThat(median).isCloseTo((min + max) / 2, org.assertj.core.api.Assertions.within(0.1));
            assertThat(r.get("bytes_per_s").asDouble()).isCloseTo(median * 32, org.assertj.core.api.Assertions.within(3.3));
            // the ratio is this row's median over the floor's 2 000 000, computed here, not by the code under test
            assertThat(r.get("ratio_to_tcp_stream_c").asDouble())
                .isCloseTo(median / 2_000_000.0, org.assertj.core.api.Assertions.within(1e-6));
            assertThat(r.get("batch").asInt()).isEqualTo(64);
            final String name = r.get("transport").asText().equals("peregrine-tcp") ? "peregrine-tcp \\*" : "netty";
            final java.util.regex.Matcher printed = java.util.regex.Pattern.compile("(?m)^\\s*" + name
                + " +32 +2 +(\\d+) +(\\d+) - (\\d+) +(\\d+\\.\\d) +(\\d+\\.\\d\\d)x .*ok").matcher(out);
            assertThat(printed.find()).as(out).isTrue();
            // the JSON keeps one decimal and the table none: the printed integers are within half a message of it
            assertThat(Double.parseDouble(printed.group(1))).isCloseTo(median, org.assertj.core.api.Assertions.within(0.55));
            assertThat(Double.parseDouble(printed.group(2))).isCloseTo(min, org.assertj.core.api.Assertions.within(0.55));
            assertThat(Double.parseDouble(printed.group(3))).isCloseTo(max, org.assertj.core.api.Assertions.within(0.55));
            assertThat(Double.parseDouble(printed.group(4))).isCloseTo(median * 32 / 1e6, org.assertj.core.api.Assertions.within(0.051));
            assertThat(printed.group(5)).isEqualTo(String.format(java.util.Locale.ROOT, "%.2f", median / 2_000_000.0));
        }
    }

    @Test
    void shouldSayWhyTheFloorIsSkipped() {
        final String out = run("bench", "throughput", "--transport", "test-mem", "--size", "32",
            "--warmup-seconds", "0.1", "--seconds", "0.1", "--warmup", "100", "--in-process", "--no-busy-spin", "--quiet",
            "--no-stream-floor");

        assertThat(code).as(out).isZero();
        assertThat(out).contains("tcp-stream-c: skipped: not run (--no-stream-floor)")
            .containsPattern("tcp-stream-c \\(C\\) +32 +1 +n/a .*skipped: not run \\(--no-stream-floor\\)");
    }

    @Test
    void shouldRefuseZeroRoundsOrBatchNamingTheOption() {
        final PrintStream savedErr = System.err;
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            run("bench", "throughput", "--transport", "test-mem", "--rounds", "0");
            assertThat(code).isEqualTo(2);
            run("bench", "throughput", "--transport", "test-mem", "--batch", "0");
            assertThat(code).isEqualTo(2);
            run("bench", "throughput", "--transport", "test-mem", "--batch", "64kb");
            assertThat(code).isEqualTo(2);
        } finally {
            System.setErr(savedErr);
        }
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("'--rounds': 0 is out of range; expected 1 to 1000",
            "'0' is not a batch: give a count of messages (e.g. 2048) or a payload size (e.g. 64KiB",
            "'64kb' is not a batch").doesNotContain("Exception");
    }

    @Test
    void shouldFlushEvery64KiBOfPayloadByDefaultAndEvery256MessagesWhenPaced() throws Exception {
        final Path json = folder.resolve("d.json");
        final String out = run("bench", "throughput", "--transport", "test-mem", "--size", "32,256",
            "--warmup-seconds", "0.1", "--seconds", "0.1", "--warmup", "100", "--in-process", "--no-busy-spin", "--quiet",
            "--no-stream-floor", "--json", json.toString());

        assertThat(code).as(out).isZero();
        assertThat(out).contains("batches of 64 KiB of payload (2048 messages of 32 B, 256 of 256 B) then a flush");
        assertThat(Json.read(json).valueStream().filter(r -> !r.get("floor").asBoolean()).toList())
            .extracting(r -> r.get("size").asInt() + ":" + r.get("batch").asInt()).containsExactlyInAnyOrder("32:2048", "256:256");

        final String paced = run("bench", "throughput", "--transport", "test-mem", "--size", "32", "--rate", "100000",
            "--warmup-seconds", "0.1", "--seconds", "0.1", "--warmup", "100", "--in-process", "--no-busy-spin", "--quiet",
            "--no-stream-floor");
        assertThat(code).as(paced).isZero();
        assertThat(paced).contains("batches of 256 messages then a flush");

        final String bytes = run("bench", "throughput", "--transport", "test-mem", "--size", "32", "--batch", "1KiB",
            "--warmup-seconds", "0.1", "--seconds", "0.1", "--warmup", "100", "--in-process", "--no-busy-spin", "--quiet",
            "--no-stream-floor");
        assertThat(code).as(bytes).isZero();
        assertThat(bytes).contains("batches of 1 KiB of payload (32 messages of 32 B) then a flush");
    }
}
