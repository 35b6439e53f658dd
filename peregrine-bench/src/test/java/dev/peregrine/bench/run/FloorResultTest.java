package dev.peregrine.bench.run;

import dev.peregrine.testkit.Needs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class FloorResultTest {
    /** Output of /work/shared/floor/run 256 20000 on the development machine. */
    private static final String REAL_OUTPUT = """
        shm-c rtt ns: p50=467 p90=500 p99=633 p99.9=2897 p99.99=48702 max=168499
        udp-c size=256 rtt ns: p50=6499 p90=7707 p99=13690 p99.9=34850 p99.99=70516 max=70840
        tcp-c size=256 rtt ns: p50=10871 p90=12307 p99=26631 p99.9=41129 p99.99=150637 max=187954
        """;

    @Test
    void shouldParseEveryLineOfTheFloorOutput() {
        final List<FloorResult> floors = FloorResult.parseAll("gcc: warning: something\n" + REAL_OUTPUT);

        assertThat(floors).containsExactly(
            new FloorResult("shm-c", -1, 467, 500, 633, 2897, 48702, 168499),
            new FloorResult("udp-c", 256, 6499, 7707, 13690, 34850, 70516, 70840),
            new FloorResult("tcp-c", 256, 10871, 12307, 26631, 41129, 150637, 187954));
        assertThat(floors).extracting(FloorResult::path).containsExactly("shm", "udp", "tcp");
    }

    @Test
    void shouldTakeEachFigureOfEachLineAsItsMedianOverTheRounds() {
        final List<List<FloorResult>> rounds = List.of(
            List.of(new FloorResult("shm-c", -1, 100, 1, 1, 1, 1, 9), new FloorResult("tcp-c", 256, 1000, 1, 1, 1, 1, 1),
                new FloorResult("shm-c", -1, 999, 9, 9, 9, 9, 9)), // a repeat of a sizeless line in one round: left out
            List.of(new FloorResult("shm-c", -1, 300, 3, 3, 3, 3, 1), new FloorResult("tcp-c", 256, 3000, 3, 3, 3, 3, 3)),
            List.of(new FloorResult("shm-c", -1, 200, 2, 2, 2, 2, 5)),
            List.of(new FloorResult("tcp-c", 256, 2000, 2, 2, 2, 2, 2), new FloorResult("tcp-c", 32, 500, 5, 5, 5, 5, 5)));

        assertThat(FloorResult.medians(rounds)).containsExactly(
            new FloorResult("shm-c", -1, 200, 2, 2, 2, 2, 5),
            new FloorResult("tcp-c", 256, 2000, 2, 2, 2, 2, 2),
            new FloorResult("tcp-c", 32, 500, 5, 5, 5, 5, 5));
        assertThat(FloorResult.medians(List.of(rounds.get(1), rounds.get(3))).get(1))
            .as("an even count: the mean of the two middle ones").isEqualTo(new FloorResult("tcp-c", 256, 2500, 2, 2, 2, 2, 2));
    }

    @Test
    void shouldMatchFloorsByPathAndSize() {
        final List<FloorResult> floors = FloorResult.parseAll(REAL_OUTPUT);

        assertThat(FloorResult.find(floors, "tcp", 256).p50()).isEqualTo(10871);
        assertThat(FloorResult.find(floors, "tcp", 32)).isNull();
        assertThat(FloorResult.find(floors, "shm", 32).name()).isEqualTo("shm-c");
    }

    @Test
    void shouldIgnoreLinesThatAreNotFloorLines() {
        assertThat(FloorResult.parse("tcp-c size=256 rtt ns: p50=abc")).isNull();
        assertThat(FloorResult.parse("")).isNull();
        assertThat(FloorResult.parse("tcp-c size=256 rtt ns: p50=1 p90=2 p99=3 p99.9=4 p99.99=5 max=99999999999999999999"))
            .isNull();
    }

    @Test
    @Timeout(120)
    void shouldParseWhatTheRealFloorScriptPrints() {
        final Path script = Path.of("/work/shared/floor/run");
        Needs.configuration("the machine's C floor script", Files.isExecutable(script), script + " is not here");

        final FloorRunner.Outcome outcome = FloorRunner.run(script + " 64 1000");

        assertThat(outcome.error()).isNull();
        assertThat(outcome.results()).extracting(FloorResult::name).containsExactly("shm-c", "udp-c", "tcp-c");
        assertThat(outcome.results().get(2).size()).isEqualTo(64);
        assertThat(outcome.results()).allSatisfy(f -> assertThat(f.p50()).isPositive().isLessThanOrEqualTo(f.max()));
    }

    @Test
    @Timeout(30)
    void shouldReportACommandThatPrintsNoFloorLines() {
        final FloorRunner.Outcome outcome = FloorRunner.run("echo hello; exit 3");

        assertThat(outcome.results()).isEmpty();
        assertThat(outcome.error()).contains("exit code 3").contains("hello");
    }
}
