package dev.peregrine.bench.reconnect;

import dev.peregrine.tcp.TcpOptions;
import dev.peregrine.testkit.AllocationMeter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReplayRunnerTest {
    /** Whole runs measured at most until the server reactor's windows in one allocate nothing. */
    private static final int MAX_RUNS = 5;
    /** Least multiple of a connection's outbound buffer that each warm-up replay exceeds. */
    private static final int WARM_UP_REPLAY_BUFFERS = 4;

    @Test
    void shouldMeasureEveryLiveMessageServerSideAtTheCaughtUpClientWhileOthersReplay() throws Exception {
        // zero tolerance in the first clean run (AllocationMeter.firstCleanSet's rule, each run a set): a run whose
        // windows allocated is the further warm-up of the next; an allocation per replayed or live message, or once
        // per window, shows in every run and fails
        final AllocationMeter.CleanSets runs = new AllocationMeter.CleanSets(1, MAX_RUNS);
        long[] windows;
        do {
            windows = measuredRun();
        } while (runs.another(Arrays.stream(windows).sum()));
        assertThat(windows).as("server reactor bytes per window of live messages, run %d of at most %d", runs.sets(),
            MAX_RUNS).containsOnly(0L);
    }

    /**
     * A publisher that fell behind catches up in runs of {@link ReplayRunner#PUBLISH_BATCH} a duty cycle, each written
     * at its cycle's end: every message is stamped at its own publish, so a run of 1 024 (the bound before) held its
     * first message for 1 023 publishes, which the publish-to-write figure counted as the server's (fails with it).
     */
    @Test
    void shouldPublishABacklogInShortRunsOneACycle() {
        assertThat(ReplayRunner.PUBLISH_BATCH).isLessThanOrEqualTo(16);
        assertThat(ReplayRunner.publishable(0, 100_000)).as("a second behind").isEqualTo(ReplayRunner.PUBLISH_BATCH);
        assertThat(ReplayRunner.publishable(99_990, 100_000)).as("the last of a backlog").isEqualTo(10);
        assertThat(ReplayRunner.publishable(5, 5)).as("nothing due").isZero();
        assertThat(ReplayRunner.publishable(6, 5)).as("ahead: nothing, not a negative count").isZero();
    }

    /**
     * The warm-up takes the paths the measured run with replaying clients takes: each replay wraps a connection's
     * outbound buffer several times (its compaction, then a full buffer's back-pressure). With 10 000 messages a client
     * (190 KB, under the 256 KiB buffer) those paths were first taken, trapped and compiled again inside the measured
     * stream (fails with 10 000).
     */
    @Test
    void shouldWarmUpWithReplaysThatWrapAConnectionsOutboundBuffer() {
        final long replayBytes = (long)ReplayRunner.WARM_UP_REPLAY * ReplayRunner.PACKET_BYTES;
        final int buffer = new TcpOptions().outboundBufferSize();

        assertThat(replayBytes).as("a warm-up client's replay against the outbound buffer's %d B", buffer)
            .isGreaterThan((long)WARM_UP_REPLAY_BUFFERS * buffer);
        assertThat(ReplayRunner.WARM_UP_CLIENTS).as("more than one client replays, as in the measured run")
            .isGreaterThan(1);
    }

    @Test
    void shouldWarmUpInARunOfItsOwnBeforeTheMeasuredRuns() throws Exception {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final boolean finished = ReplayRunner.run(1, 1_000, 50_000, 2_000,
            new PrintStream(bytes, true, StandardCharsets.UTF_8), false);
        final String out = bytes.toString(StandardCharsets.UTF_8);

        assertThat(finished).as(out).isTrue();
        assertThat(out).as("a cold JVM's first batches are not measured (issue 32, soup12)")
            .contains("warm-up (not measured): 2000 live messages, 1 clients replaying 1000: finished");
        assertThat(out.indexOf("warm-up")).as(out).isLessThan(out.indexOf("0 replaying clients: finished"));
        final Matcher counts = Pattern.compile("publish to write at the caught-up client \\(n=(\\d+), not caught up"
            + " (\\d+),").matcher(out);
        final Matcher after = Pattern.compile("\\(after n=(\\d+)\\)").matcher(out);
        final long afterWindow = after.find() ? Long.parseLong(after.group(1)) : 0;
        for (int run = 0; run < 2; run++) {
            assertThat(counts.find()).as(out).isTrue();
            assertThat(Long.parseLong(counts.group(1)) + Long.parseLong(counts.group(2)) + (run == 1 ? afterWindow : 0))
                .as("only the measured run's own messages counted").isEqualTo(2_000);
        }
    }

    @Test
    void shouldTraceEveryMeasuredMessageToItsDutyCyclesWhenDiagnosing() throws Exception {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final ReplayRunner.Run run = ReplayRunner.once(2, 2_000, 50_000, 3_000,
            new PrintStream(bytes, true, StandardCharsets.UTF_8), null, true);
        final String out = bytes.toString(StandardCharsets.UTF_8);

        assertThat(run.finished()).as(out).isTrue();
        final Matcher traced = Pattern.compile("diagnose 2 replaying: (\\d+) measured messages traced, p99 [0-9.]+ us;"
            + " (\\d+) at or over it: (\\d+) written in the cycle they were published in, (\\d+) in a later cycle")
            .matcher(out);
        assertThat(traced.find()).as(out).isTrue();
        assertThat(Long.parseLong(traced.group(1))).as("every message of the replay window traced to its publish and write cycles")
            .isEqualTo(run.write().histogram().getTotalCount());
        final int tail = Integer.parseInt(traced.group(2));
        assertThat(tail).as(out).isPositive();
        assertThat(Integer.parseInt(traced.group(3)) + Integer.parseInt(traced.group(4))).as(out).isEqualTo(tail);
        final Matcher held = Pattern.compile("run delay \\(runnable, waiting for a core\\) (\\d+); written in a later"
            + " cycle (\\d+); waiting for the rest of its publisher batch (\\d+); the flush before its write (\\d+);"
            + " none of those alone (\\d+)").matcher(out);
        assertThat(held.find()).as(out).isTrue();
        int classified = 0;
        for (int g = 1; g <= 5; g++) {
            classified += Integer.parseInt(held.group(g));
        }
        assertThat(classified).as("each message over the p99 named once").isEqualTo(tail);
        final Matcher where = Pattern.compile("diagnose 2 replaying: over p99, by tenth of the stream \\(first to"
            + " last\\): \\[([0-9, ]+)]").matcher(out);
        assertThat(where.find()).as(out).isTrue();
        assertThat(Arrays.stream(where.group(1).split(", ")).mapToInt(Integer::parseInt).sum())
            .as("each message over the p99 placed in one tenth of the stream").isEqualTo(tail);
        assertThat(out).contains("cycles holding the p99 messages", "on a CPU, median / p99 / max: select");
    }

    @Test
    void shouldMeasureTheTargetsFigureOnlyWhileEveryReplayingClientIsStillReplaying() throws Exception {
        // 2 clients replay 2 000 messages each, far faster than 6 000 live messages come at 20 000 msg/s: they catch
        // up early, after which a publish writes to three caught-up clients, not the target's scenario
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final ReplayRunner.Run run = ReplayRunner.once(2, 2_000, 20_000, 6_000,
            new PrintStream(bytes, true, StandardCharsets.UTF_8));
        final String out = bytes.toString(StandardCharsets.UTF_8);

        assertThat(run.finished()).as(out).isTrue();
        final PublishToWriteRecorder write = run.write();
        assertThat(run.replayWindow()).as("live messages published while both replayed").isLessThan(6_000);
        assertThat(write.histogram().getTotalCount()).as("the window's messages only")
            .isLessThanOrEqualTo(run.replayWindow());
        assertThat(write.outsideWindow().getTotalCount()).as("the rest, recorded apart")
            .isGreaterThanOrEqualTo(6_000 - run.replayWindow() - write.notCaughtUp());

        final ReplayRunner.Run alone = ReplayRunner.once(0, 2_000, 20_000, 2_000,
            new PrintStream(OutputStream.nullOutputStream()));
        assertThat(alone.replayWindow()).as("without replaying clients every message is in the window").isEqualTo(2_000);
        assertThat(alone.write().outsideWindow().getTotalCount()).isZero();
    }

    @Test
    void shouldPrintTheReplayWindowAndWhatCameAfterItApart() throws Exception {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        assertThat(ReplayRunner.run(1, 1_000, 20_000, 4_000, new PrintStream(bytes, true, StandardCharsets.UTF_8),
            false)).isTrue();
        final String out = bytes.toString(StandardCharsets.UTF_8);

        assertThat(out).contains("server, 1 clients replaying 1000 each, while all 1 were replaying (live messages 1 to ",
            "server, after the first replaying client caught up (not the target's");
    }

    /** One run, its counts checked; the server reactor's bytes in each window of its live messages. */
    private static long[] measuredRun() throws Exception {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final int live = 5_000;
        final long[] marks = new long[11];
        final ReplayRunner.Run run = ReplayRunner.once(3, 5_000, 50_000, live,
            new PrintStream(bytes, true, StandardCharsets.UTF_8), marks);
        final String out = bytes.toString(StandardCharsets.UTF_8);

        assertThat(run.finished()).as(out).isTrue();
        assertThat(run.liveDelivered()).isEqualTo(live);
        assertThat(run.deliver().getTotalCount()).isEqualTo(live);
        final PublishToWriteRecorder write = run.write();
        assertThat(write.waiting()).as("every measured message seen written").isZero();
        assertThat(write.overflowed()).isZero();
        assertThat(write.writes()).as("the live client's writes, seen as they happened by the write listener")
            .isPositive().isGreaterThanOrEqualTo(write.partialWrites());
        assertThat(write.histogram().getTotalCount() + write.outsideWindow().getTotalCount() + write.notCaughtUp())
            .as("nothing lost").isEqualTo(live);
        assertThat(write.lastMatchedPosition()).as("the last message matched by the write that ended with it: its"
            + " position is its last byte's").isEqualTo(write.writtenAtLastMatch());
        assertThat(write.histogram().getTotalCount() + write.outsideWindow().getTotalCount())
            .as("measured (not caught up: " + write.notCaughtUp() + ")").isGreaterThan(live * 9L / 10);
        final long[] windows = new long[marks.length - 1];
        for (int i = 0; i < windows.length; i++) {
            windows[i] = marks[i + 1] - marks[i];
        }
        System.out.println("ReplayRunnerTest: server reactor bytes per window " + Arrays.toString(windows));
        return windows;
    }
}
