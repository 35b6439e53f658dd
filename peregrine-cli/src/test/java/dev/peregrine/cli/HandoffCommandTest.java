package dev.peregrine.cli;

import dev.peregrine.cli.testing.CliRun;
import dev.peregrine.peers.aeron.AeronDriverSettings;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bench handoff}: its refusals (one line, exit 2, nothing run) and a short real run of every implementation,
 * whose table must hold every row under its group, with exact labels.
 */
class HandoffCommandTest {
    @Test
    void shouldRefuseAMistypedImplementationWithOneLineNamingTheClosest() {
        final CliRun run = CliRun.execute("bench", "handoff", "--impl", "peregrine-spsc,disrupter");

        assertThat(run.code()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err().lines().toList()).singleElement().asString()
            .contains("--impl", "'disrupter' is not a hand-off implementation; did you mean disruptor?",
                "known: peregrine-spsc, peregrine-mpsc, disruptor, agrona-spsc, agrona-mpsc, jctools-mpsc, abq");
    }

    @Test
    void shouldRefuseASizeWithoutRoomForTheSequenceAndTheSendTime() {
        final CliRun run = CliRun.execute("bench", "handoff", "--size", "32,8");

        assertThat(run.code()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err().lines().toList()).singleElement().asString()
            .contains("--size", "8", "16", "4096", "a message carries its 8-byte sequence and 8-byte send time");
    }

    @Test
    void shouldRefuseARateOfZero() {
        final CliRun run = CliRun.execute("bench", "handoff", "--rate", "0");

        assertThat(run.code()).isEqualTo(2);
        assertThat(run.err().lines().toList()).singleElement().asString().contains("--rate", "0");
    }

    @Tag("slow")
    @Test
    @Timeout(300)
    void shouldPrintARowForEveryImplementationInEveryGroup() throws Exception {
        // a JVM of its own, as ./peregrine relaunches one for Agrona: with the JVM option Agrona needs on JDK 25
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElseThrow());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("-XX:AutoBoxCacheMax=65536"); // as the launcher: SelectorBoxing
        command.addAll(AeronDriverSettings.JVM_ARGUMENTS);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(),
            "bench", "handoff", "--size", "32", "--rate", "20000", "--warmup-seconds", "0.05", "--seconds", "0.1"));
        final String out = run(command);

        final List<String> table = out.lines().dropWhile(l -> !l.equals("bench handoff")).toList();
        assertThat(table).as(out).containsSubsequence(
            "[one-way latency in us, 1 producer at 20000 msg/s, one message per hand-over, from the intended send"
                + " time; both threads spin, pinned to CPUs 0 and 1 where there are two]",
            "[throughput, 1 producer -> 1 consumer, batches of 256; both threads spin, pinned to CPUs 0 and 1 where"
                + " there are two]",
            "[throughput, 2 producers -> 1 consumer, batches of 256; every thread yields when idle (2 vCPUs)]");
        assertThat(table.get(1).split(" +")).containsExactly("impl", "size", "p50", "p90", "p99", "p99.9", "p99.99",
            "max", "msg/s", "B/msg", "prod/cons", "vs", "disruptor");
        final List<String> impls = new ArrayList<>();
        for (final String line : table.subList(3, table.size())) {
            if (!line.startsWith("[") && !line.startsWith(" ")) {
                impls.add(line.split(" +")[0]);
                assertThat(line).as(line).doesNotContain("FAILED").matches(".* 32 .*");
            }
        }
        final List<String> all = List.of("peregrine-spsc", "peregrine-mpsc", "disruptor", "agrona-spsc",
            "agrona-mpsc", "jctools-mpsc", "abq");
        final List<String> many = List.of("peregrine-mpsc", "disruptor", "agrona-mpsc", "jctools-mpsc", "abq");
        final List<String> expected = new ArrayList<>(all);
        expected.addAll(all);
        expected.addAll(many);
        assertThat(impls).as(out).containsExactlyElementsOf(expected);
        assertThat(table).as(out).anySatisfy(l -> assertThat(l).matches("disruptor +32( +[0-9.]+){6} +[0-9]+ +\\S+ +1\\.00x"));
        // producer/consumer bytes per message in every row; that Peregrine's are 0 once warm is
        // PeregrineHandoffAllocationTest's to prove: a run this short measures the JIT's warm-up too
        assertThat(table.subList(3, table.size())).filteredOn(l -> !l.startsWith("[") && !l.startsWith(" "))
            .as(out).allSatisfy(l -> assertThat(l.split(" +")[9]).matches("[0-9.]+/[0-9.]+"));
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
