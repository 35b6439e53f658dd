package dev.peregrine.bench.reconnect;

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
    @Test
    void shouldMeasureEveryLiveMessageServerSideAtTheCaughtUpClientWhileOthersReplay() throws Exception {
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
        assertThat(write.histogram().getTotalCount() + write.notCaughtUp()).as("nothing lost").isEqualTo(live);
        assertThat(write.lastMatchedPosition()).as("the last message matched by the write that ended with it: its"
            + " position is its last byte's").isEqualTo(write.writtenAtLastMatch());
        assertThat(write.histogram().getTotalCount()).as("measured (not caught up: " + write.notCaughtUp() + ")")
            .isGreaterThan(live * 9L / 10);
        final long[] windows = new long[marks.length - 1];
        for (int i = 0; i < windows.length; i++) {
            windows[i] = marks[i + 1] - marks[i];
        }
        // AllocationMeter's rule: the median window 0, at most one in five allocated (a JIT one-off)
        assertThat(Arrays.stream(windows).sorted().toArray()[windows.length / 2]).as("server reactor bytes per window of"
            + " %d live messages: %s", live / marks.length, Arrays.toString(windows)).isZero();
        assertThat(Arrays.stream(windows).filter(b -> b != 0).count()).as(Arrays.toString(windows))
            .isLessThanOrEqualTo(windows.length / 5);
    }
}
