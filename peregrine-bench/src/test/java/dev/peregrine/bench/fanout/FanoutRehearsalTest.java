package dev.peregrine.bench.fanout;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rehearsal of the measured window inside the warm-up ({@link FanoutReaderChild#rehearsal}): it lies wholly in the
 * warm-up, ends well before the first measured sequence (so that the JIT has compiled the read loop again, with the
 * window's branches, before the window), and is absent from a warm-up too short to hold it. That its figures are
 * forgotten is {@code FanoutRunnerTest}'s: every reader's histogram holds exactly the measured messages.
 */
class FanoutRehearsalTest {
    @Test
    void shouldRehearseTheThirdQuarterOfTheWarmUp() {
        assertThat(FanoutReaderChild.rehearsal(2_000)).containsExactly(1_000, 1_499);
        assertThat(FanoutReaderChild.rehearsal(400_000)).containsExactly(200_000, 299_999);
        for (long first = 4; first < 10_000; first += 7) {
            final long[] rehearsal = FanoutReaderChild.rehearsal(first);
            assertThat(rehearsal[0]).as("first=%d", first).isPositive().isLessThanOrEqualTo(rehearsal[1]);
            assertThat(rehearsal[1]).as("first=%d: a quarter of the warm-up after it", first)
                .isLessThan(first - first / 4 + 1);
        }
    }

    @Test
    void shouldNotRehearseInAWarmUpTooShortToHoldIt() {
        assertThat(FanoutReaderChild.rehearsal(0)).isNull();
        assertThat(FanoutReaderChild.rehearsal(3)).isNull();
    }
}
