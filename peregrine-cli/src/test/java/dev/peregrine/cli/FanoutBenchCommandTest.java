package dev.peregrine.cli;

import dev.peregrine.cli.testing.CliRun;
import dev.peregrine.peers.aeron.AeronDriverSettings;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bench fanout}: its refusals (one line, exit 2, nothing run) and a short real run of every transport at 1
 * and 2 readers in 2 rounds, whose table must hold every row once, in the table's order whatever order a round
 * ran them in, every one passed (each reader checked every sequence) with its range over the rounds.
 */
class FanoutBenchCommandTest {
    @Test
    void shouldRefuseAMistypedTransportWithOneLineNamingTheClosest() {
        final CliRun run = CliRun.execute("bench", "fanout", "--transport", "aeron-ipd");

        assertThat(run.code()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err().lines().toList()).singleElement().asString()
            .contains("--transport", "'aeron-ipd' is not a fan-out transport; did you mean aeron-ipc?",
                "known: peregrine-broadcast, peregrine-broadcast-drop, peregrine-shm, aeron-ipc, chronicle-queue");
    }

    @Test
    void shouldRefuseAScenarioWithoutASecondReader() {
        final CliRun run = CliRun.execute("bench", "fanout", "--readers", "1", "--kill-reader");

        assertThat(run.code()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err().lines().toList()).singleElement().asString()
            .contains("--kill-reader", "needs a --readers count of 2 or more");
    }

    @Test
    void shouldRefuseASizeWithoutRoomForTheSequenceAndTheSendTime() {
        final CliRun run = CliRun.execute("bench", "fanout", "--size", "32,8");

        assertThat(run.code()).isEqualTo(2);
        assertThat(run.err().lines().toList()).singleElement().asString()
            .contains("--size", "8", "a message carries its 8-byte sequence and 8-byte send time");
    }

    @Test
    void shouldRefuseALogSizeThatIsNotAPowerOfTwo() {
        final CliRun run = CliRun.execute("bench", "fanout", "--stop-reader", "--readers", "4", "--records", "100000");

        assertThat(run.code()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err().lines().toList()).singleElement().asString()
            .contains("--records", "'100000' is not a power of two");
    }

    @Test
    void shouldChooseTheStopReaderSetUpOnlyForWhatIsNotGiven() {
        final FanoutBenchCommand chosen = parsed("--stop-reader", "--size", "32");
        assertThat(chosen.stopReaderSetUp()).startsWith("stop-reader: 4 readers at 2000 msg/s for 10.0 s after 10.0 s"
            + " of warm-up, 32 B, a DROP log of 4096 records (2048 ms at that rate); reader 0 is stopped with SIGSTOP"
            + " at the half-way sequence, or in the reference run detaches there and stays idle; the other 3 are"
            + " measured");

        final FanoutBenchCommand given = parsed("--stop-reader", "--readers", "3", "--rate", "100000", "--seconds", "2",
            "--size", "256");
        assertThat(given.stopReaderSetUp()).startsWith("stop-reader: 3 readers at 100000 msg/s for 2.0 s after 10.0 s"
            + " of warm-up, 256 B, a DROP log of 32768 records (328 ms at that rate)");

        final FanoutBenchCommand records = parsed("--stop-reader", "--records", "65536");
        assertThat(records.stopReaderSetUp()).contains("a DROP log of 65536 records (32768 ms at that rate)");
    }

    private static FanoutBenchCommand parsed(final String... args) {
        final FanoutBenchCommand command = new FanoutBenchCommand();
        new picocli.CommandLine(command).parseArgs(args);
        command.stopReaderDefaults();
        return command;
    }

    @Tag("slow")
    @Test
    @Timeout(600)
    void shouldPrintAPassedRowForEveryTransportAtOneAndTwoReaders() throws Exception {
        final Path report = Files.createTempFile("fanout", ".html");
        // a JVM of its own, as ./peregrine relaunches one for Aeron: with the JVM option Aeron needs on JDK 25
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElseThrow());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("-XX:AutoBoxCacheMax=65536"); // as the launcher: SelectorBoxing
        command.addAll(AeronDriverSettings.JVM_ARGUMENTS);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(),
            "bench", "fanout", "--readers", "1,2", "--size", "32", "--rate", "10000", "--warmup-seconds", "0.3",
            "--seconds", "0.3", "--messages", "20000", "--rounds", "2", "--report", report.toString()));
        final String out = run(command);

        final List<String> table = out.lines().dropWhile(l -> !l.equals("bench fanout")).toList();
        final List<String> rows = table.stream().filter(l -> !l.startsWith("[") && !l.startsWith(" ")
            && !l.startsWith("transport") && !l.startsWith("bench") && !l.startsWith("report:")).toList();
        assertThat(rows.stream().map(l -> l.split(" +")[0] + " " + l.split(" +")[1]).toList()).as(out).containsExactly(
            "peregrine-broadcast 1", "peregrine-broadcast-drop 1", "peregrine-shm 1", "aeron-ipc 1",
            "peregrine-broadcast 2", "peregrine-broadcast-drop 2", "aeron-ipc 2",
            "peregrine-broadcast 1", "peregrine-shm 1", "aeron-ipc 1", "peregrine-broadcast 2", "aeron-ipc 2");
        assertThat(rows).as(out).allSatisfy(l -> assertThat(l).doesNotContain("FAILED").contains(" ok")
            .contains("; 2 rounds, "));
        assertThat(out.lines().filter(l -> l.startsWith("round ")).toList()).as(out)
            .containsExactly("round 1 of 2", "round 2 of 2");
        assertThat(table).as(out).anySatisfy(l -> assertThat(l).startsWith("  chronicle-queue: not run: "));
        final String html = Files.readString(report);
        assertThat(html.split("<svg class=\"chart\"", -1)).as("latency and throughput charts").hasSize(3);
        Files.deleteIfExists(report);
    }

    private static String run(final List<String> command) throws IOException, InterruptedException {
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put(Relaunch.MARKER, "1");
        final Process process = builder.start();
        final byte[] output = process.getInputStream().readAllBytes(); // ends when the process does
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        final String out = new String(output, StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(out).isZero();
        return out;
    }
}
