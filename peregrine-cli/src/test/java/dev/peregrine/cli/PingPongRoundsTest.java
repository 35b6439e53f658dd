package dev.peregrine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.peregrine.bench.report.LatencyTable;
import dev.peregrine.cli.testing.CliRun;
import dev.peregrine.bench.testing.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bench pingpong --rounds N}: the floor and every transport run once a round, the table shows the medians
 * over the rounds (the floor's too), the JSON every round's run.
 */
@Timeout(120)
class PingPongRoundsTest {
    @TempDir
    Path folder;

    @Test
    void shouldRefuseZeroRoundsWithOneLineAndExitCode2() {
        final CliRun cli = CliRun.execute("bench", "pingpong", "--transport", "peregrine-tcp", "--rounds", "0");

        assertThat(cli.code()).isEqualTo(2);
        assertThat(cli.err().strip().lines().count()).as(cli.err()).isEqualTo(1);
        assertThat(cli.err()).contains("--rounds").doesNotContain("\tat ");
    }

    @Test
    void shouldRunTheFloorAndEveryTransportOnceARoundAndShowTheMediansOfTheRounds() throws Exception {
        final Path json = folder.resolve("rounds.json");
        // a floor whose p50 is 1, 5 and 3 us in rounds 1, 2 and 3: its median, 3 us, is the one in the table
        final Path counter = folder.resolve("floor-round");
        final String floor = "n=$(cat '" + counter + "' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '" + counter
            + "'; p=$(echo 0 1000 5000 3000 | cut -d' ' -f$((n+1))); echo \"shm-c rtt ns: p50=$p p90=$p p99=$p"
            + " p99.9=$p p99.99=$p max=$p\"";

        final CliRun cli = CliRun.execute("bench", "pingpong", "--transport", "test-mem", "--size", "32", "--rounds", "3",
            "--messages", "2000", "--warmup", "500", "--in-process", "--no-busy-spin", "--quiet", "--floor", floor,
            "--json", json.toString());
        final String out = cli.out();

        assertThat(cli.code()).as(out + cli.err()).isZero();
        assertThat(out.indexOf("round 1 of 3")).isNotNegative().isLessThan(out.indexOf("round 2 of 3"));
        assertThat(out.indexOf("round 2 of 3")).isLessThan(out.indexOf("round 3 of 3"));
        assertThat(Files.readString(counter).strip()).as("the floor ran once a round").isEqualTo("3");
        final JsonNode runs = Json.read(json);
        assertThat(runs.size()).isEqualTo(3);
        final List<Integer> rounds = new ArrayList<>();
        final List<Long> p50s = new ArrayList<>();
        for (final JsonNode run : runs) {
            rounds.add(run.get("round").asInt());
            p50s.add(run.get("rtt_ns").get("p50").asLong());
        }
        assertThat(rounds).containsExactly(1, 2, 3);
        final List<Long> sorted = p50s.stream().sorted().toList();
        final String median = LatencyTable.micros(sorted.get(1)).replace(".", "\\.");
        final String range = LatencyTable.micros(sorted.get(0)).replace(".", "\\.") + " - "
            + LatencyTable.micros(sorted.get(2)).replace(".", "\\.");
        assertThat(out).containsPattern("test-mem +32 +3 +" + median + " +" + range + " ");
        assertThat(out).containsPattern("floor shm-c \\(C\\) +any +3 +3\\.000 ");
        assertThat(out).contains("median of the rounds");
        assertThat(out.indexOf("  shm-c: p50 5.000 us")).as("each round's floor, as it ran")
            .isGreaterThan(out.indexOf("round 2 of 3")).isLessThan(out.indexOf("round 3 of 3"));
    }
}
