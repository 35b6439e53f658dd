package dev.peregrine.bench.reconnect;

import dev.peregrine.testkit.AllocationMeter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReplayRunnerTest {
    /** Whole runs measured at most until the server reactor's windows in one allocate nothing. */
    private static final int MAX_RUNS = 5;

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
        assertThat(write.histogram().getTotalCount() + write.notCaughtUp()).as("nothing lost").isEqualTo(live);
        assertThat(write.lastMatchedPosition()).as("the last message matched by the write that ended with it: its"
            + " position is its last byte's").isEqualTo(write.writtenAtLastMatch());
        assertThat(write.histogram().getTotalCount()).as("measured (not caught up: " + write.notCaughtUp() + ")")
            .isGreaterThan(live * 9L / 10);
        final long[] windows = new long[marks.length - 1];
        for (int i = 0; i < windows.length; i++) {
            windows[i] = marks[i + 1] - marks[i];
        }
        System.out.println("ReplayRunnerTest: server reactor bytes per window " + Arrays.toString(windows));
        return windows;
    }
}
