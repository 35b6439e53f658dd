package dev.peregrine.reactor;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class IdleStrategyTest {
    private enum Phase { SPIN, YIELD, PARK, RESET }

    /**
     * The back-off state, read through reflection: the strategy has no hook to observe its phases, and what it
     * does in each (spin, yield, park) has no observable effect a test could check without timing.
     */
    private record State(long spins, long yields, long parkNs) {
        static State of(final BackoffIdleStrategy strategy) {
            return new State(read(strategy, "spins"), read(strategy, "yields"), read(strategy, "parkNs"));
        }

        Phase phaseSince(final State before) {
            if (spins == before.spins + 1 && yields == before.yields && parkNs == before.parkNs) {
                return Phase.SPIN;
            }
            if (spins == before.spins && yields == before.yields + 1 && parkNs == before.parkNs) {
                return Phase.YIELD;
            }
            if (spins == before.spins && yields == before.yields) {
                return Phase.PARK;
            }
            return spins == 0 && yields == 0 ? Phase.RESET : null;
        }

        private static long read(final BackoffIdleStrategy strategy, final String name) {
            try {
                final Field field = BackoffIdleStrategy.class.getDeclaredField(name);
                field.setAccessible(true);
                return field.getLong(strategy);
            } catch (final ReflectiveOperationException ex) {
                throw new AssertionError("BackoffIdleStrategy." + name + " is what this test observes", ex);
            }
        }
    }

    @Test
    void shouldSpinThenYieldThenParkForDoublingTimesUpToTheMaximum() {
        final BackoffIdleStrategy backoff = new BackoffIdleStrategy(2, 3, 1_000, 4_000);
        final List<Phase> phases = new ArrayList<>();
        final List<Long> nextParkNs = new ArrayList<>();

        final List<Boolean> spinsNext = new ArrayList<>();

        for (int i = 0; i < 9; i++) {
            spinsNext.add(backoff.spinsNext());
            final State before = State.of(backoff);
            backoff.idle(0);
            final State after = State.of(backoff);
            phases.add(after.phaseSince(before));
            nextParkNs.add(after.parkNs());
        }

        assertThat(phases).containsExactly(Phase.SPIN, Phase.SPIN, Phase.YIELD, Phase.YIELD, Phase.YIELD,
            Phase.PARK, Phase.PARK, Phase.PARK, Phase.PARK);
        assertThat(spinsNext).as("spinsNext() before each call: true exactly before a spin")
            .containsExactly(true, true, false, false, false, false, false, false, false);
        assertThat(nextParkNs).containsExactly(1_000L, 1_000L, 1_000L, 1_000L, 1_000L, 2_000L, 4_000L, 4_000L, 4_000L);
    }

    @Test
    void shouldReturnToSpinningAfterWorkOrReset() {
        final BackoffIdleStrategy backoff = new BackoffIdleStrategy(2, 3, 1_000, 4_000);
        for (int i = 0; i < 7; i++) {
            backoff.idle(0);
        }
        assertThat(State.of(backoff)).isEqualTo(new State(2, 3, 4_000));

        backoff.idle(1);
        assertThat(State.of(backoff)).as("after a cycle with work").isEqualTo(new State(0, 0, 1_000));
        State before = State.of(backoff);
        backoff.idle(0);
        assertThat(State.of(backoff).phaseSince(before)).isEqualTo(Phase.SPIN);

        for (int i = 0; i < 7; i++) {
            backoff.idle(0);
        }
        backoff.reset();
        assertThat(State.of(backoff)).as("after reset").isEqualTo(new State(0, 0, 1_000));
        before = State.of(backoff);
        backoff.idle(0);
        assertThat(State.of(backoff).phaseSince(before)).isEqualTo(Phase.SPIN);
    }

    @Test
    void shouldParkFromTheStartWithoutSpinsOrYields() {
        final BackoffIdleStrategy backoff = new BackoffIdleStrategy(0, 0, 1_000, 1_000);
        final State before = State.of(backoff);

        backoff.idle(0);

        assertThat(State.of(backoff).phaseSince(before)).isEqualTo(Phase.PARK);
        assertThat(State.of(backoff)).isEqualTo(new State(0, 0, 1_000));
    }

    @Test
    void shouldRejectNonsenseSettings() {
        assertThatThrownBy(() -> new BackoffIdleStrategy(1, 1, 10, 5)).hasMessageContaining("maxParkNs=5");
        assertThatThrownBy(() -> new BackoffIdleStrategy(-1, 1, 10, 50)).hasMessageContaining("maxSpins=-1");
        assertThatThrownBy(() -> new BackoffIdleStrategy(1, 1, 0, 50)).hasMessageContaining("minParkNs=0");
        assertThatThrownBy(() -> new BlockingSelectIdleStrategy(1_000)).hasMessageContaining("maxWaitNs=1000");
        assertThatThrownBy(() -> new ReactorOptions().cpu(-2)).hasMessageContaining("cpu=-2");
        assertThatThrownBy(() -> new ReactorOptions().timerWheel(1000, 8)).hasMessageContaining("tickNs=1000");
    }
}
