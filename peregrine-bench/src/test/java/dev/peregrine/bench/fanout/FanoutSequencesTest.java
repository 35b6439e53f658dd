package dev.peregrine.bench.fanout;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A reader's sequence check: in order passes; a gap, a repeat or a step back fails with the reason. */
class FanoutSequencesTest {
    @Test
    void shouldAcceptEverySequenceInOrder() {
        final FanoutSequences check = new FanoutSequences(false);
        for (long s = 0; s < 1000; s++) {
            assertThat(check.accept(s)).isTrue();
        }
        assertThat(check.expected()).isEqualTo(1000);
        assertThat(check.lost()).isZero();
        assertThat(check.failure()).isNull();
    }

    @Test
    void shouldFailAGapWithTheSequencesInTheReason() {
        final FanoutSequences check = new FanoutSequences(false);
        check.accept(0);
        check.accept(1);

        assertThat(check.accept(3)).isFalse();
        assertThat(check.failure()).isEqualTo("gap: expected sequence 2, got 3");
        assertThat(check.accept(2)).as("nothing is accepted after a failure").isFalse();
    }

    @Test
    void shouldFailARepeatAndAStepBack() {
        final FanoutSequences repeat = new FanoutSequences(false);
        repeat.accept(0);
        repeat.accept(1);
        assertThat(repeat.accept(1)).isFalse();
        assertThat(repeat.failure()).isEqualTo("repeat: expected sequence 2, got 1");

        final FanoutSequences back = new FanoutSequences(true);
        back.accept(0);
        back.accept(5);
        assertThat(back.accept(3)).as("tolerating losses never tolerates going back").isFalse();
        assertThat(back.failure()).isEqualTo("repeat: expected sequence 6, got 3");
    }

    @Test
    void shouldCountSkippedSequencesExactlyWhenLossesAreTolerated() {
        final FanoutSequences check = new FanoutSequences(true);
        check.accept(0);
        check.accept(4);
        check.accept(5);
        check.accept(100);

        assertThat(check.lost()).isEqualTo(3 + 94);
        assertThat(check.failure()).isNull();
        assertThat(check.expected()).isEqualTo(101);
    }
}
