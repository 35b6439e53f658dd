package dev.peregrine.bench.fanout;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where the writer's loop takes its readings ({@link FanoutSender#marks}): {@link FanoutSender#MARKS} times in the
 * warm-up, the last exactly at its end (the readings kept), so that the branch is taken again and again before the
 * window and the JIT keeps it in the compiled loop; then never again. Before, it was taken once before the window, and
 * the first measured message hit an uncommon trap in some runs (LogCompilation, docs/broadcast-bcast16.md).
 */
class FanoutSenderMarksTest {
    @Test
    void shouldMarkTheWarmUpManyTimesAndEndAtItsEnd() {
        final long warmup = 600_000;
        final long[] marks = FanoutSender.marks(warmup);

        assertThat(marks).hasSize(FanoutSender.MARKS + 1);
        assertThat(marks[0]).isEqualTo(warmup / FanoutSender.MARKS);
        assertThat(marks[FanoutSender.MARKS - 1]).as("the readings kept: the first measured message's").isEqualTo(warmup);
        assertThat(marks[FanoutSender.MARKS]).as("never reached").isEqualTo(Long.MAX_VALUE);
        for (int i = 1; i < marks.length; i++) {
            assertThat(marks[i]).as("mark %d", i).isGreaterThan(marks[i - 1]);
        }
    }

    @Test
    void shouldEndEveryMarksAtTheWarmUpWhateverItsLength() {
        for (long warmup = 0; warmup < 5_000; warmup += 13) {
            final long[] marks = FanoutSender.marks(warmup);
            assertThat(marks[marks.length - 2]).as("warmup=%d", warmup).isEqualTo(warmup);
            assertThat(marks[marks.length - 1]).isEqualTo(Long.MAX_VALUE);
            assertThat(marks.length - 1).as("warmup=%d: readings taken", warmup)
                .isBetween(1, FanoutSender.MARKS);
            for (int i = 1; i < marks.length - 1; i++) {
                assertThat(marks[i]).as("warmup=%d, mark %d", warmup, i).isGreaterThan(marks[i - 1]);
            }
        }
        assertThat(FanoutSender.marks(0)).containsExactly(0, Long.MAX_VALUE);
        assertThat(FanoutSender.marks(5)).containsExactly(1, 2, 3, 4, 5, Long.MAX_VALUE);
    }
}
