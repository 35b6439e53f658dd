package dev.peregrine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.peregrine.bench.report.LatencyTable;
import dev.peregrine.cli.testing.CliRun;
import dev.peregrine.bench.testing.Json;
import dev.peregrine.bench.transports.Transports;
import dev.peregrine.peers.BenchTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bench load --rounds N}: every transport runs once a round, the rounds one after another; the table shows
 * the medians, the JSON and the histograms every round's run.
 */
@Timeout(120)
class LoadRoundsTest {
    @TempDir
    Path folder;

    @Test
    void shouldRefuseZeroRoundsWithOneLineAndExitCode2() {
        final CliRun cli = CliRun.execute("bench", "load", "--transport", "peregrine-tcp", "--rounds", "0");

        assertThat(cli.code()).isEqualTo(2);
        assertThat(cli.err().strip().lines().count()).as(cli.err()).isEqualTo(1);
        assertThat(cli.err()).contains("--rounds").doesNotContain("\tat ");
    }

    @Test
    void shouldStartEachRoundOneTransportFurtherOn() {
        final List<BenchTransport> named = List.of(Transports.byName("peregrine-tcp"), Transports.byName("nio"),
            Transports.byName("netty"));
        final List<String> order = new ArrayList<>();
        for (int round = 1; round <= 4; round++) {
            order.add(LoadCommand.rotated(named, round - 1).stream().map(BenchTransport::name)
                .collect(Collectors.joining(",")));
        }

        assertThat(order).containsExactly("peregrine-tcp,nio,netty", "nio,netty,peregrine-tcp",
            "netty,peregrine-tcp,nio", "peregrine-tcp,nio,netty");
        assertThat(named).as("the list as named is left alone").extracting(BenchTransport::name)
            .containsExactly("peregrine-tcp", "nio", "netty");
    }

    @Test
    void shouldRunEveryRateOnceARoundAndShowTheMedianOfTheRounds() throws Exception {
        final Path json = folder.resolve("rounds.json");
        final Path hgrm = folder.resolve("rounds.hgrm");

        final CliRun cli = CliRun.execute("bench", "load", "--transport", "test-mem", "--clients", "2", "--rates",
            "2000,4000", "--rounds", "3", "--size", "64", "--seconds", "0.05", "--warmup-seconds", "0.01", "--in-process",
            "--no-busy-spin", "--quiet", "--json", json.toString(), "--hgrm", hgrm.toString());
        final String out = cli.out();

        assertThat(cli.code()).as(out + cli.err()).isZero();
        assertThat(out.indexOf("round 1 of 3")).isNotNegative().isLessThan(out.indexOf("round 2 of 3"));
        assertThat(out.indexOf("round 2 of 3")).isLessThan(out.indexOf("round 3 of 3"));
        final JsonNode runs = Json.read(json);
        assertThat(runs.size()).isEqualTo(6);
        final List<String> order = new ArrayList<>();
        final List<Long> p50s = new ArrayList<>();
        for (final JsonNode run : runs) {
            order.add(run.get("round").asInt() + "@" + run.get("rate").asLong());
            if (run.get("rate").asLong() == 2000) {
                p50s.add(run.get("rtt_ns").get("p50").asLong());
            }
        }
        assertThat(order).containsExactly("1@2000", "1@4000", "2@2000", "2@4000", "3@2000", "3@4000");
        // the row at 2000/s: three rounds, and the p50 of the middle one of them
        final String median = LatencyTable.micros(p50s.stream().sorted().toList().get(1));
        assertThat(out).containsPattern("test-mem +64 +3 +2 +2000 +\\S+ +" + median.replace(".", "\\.") + " ");
        assertThat(out).contains("median of the rounds");
        for (int round = 1; round <= 3; round++) {
            assertThat(folder.resolve("rounds-load-test-mem-64-r2000-round" + round + ".hgrm")).exists();
            assertThat(Files.readString(folder.resolve("rounds-load-test-mem-64-r4000-round" + round + ".hgrm")))
                .contains("Percentile");
        }
    }
}
