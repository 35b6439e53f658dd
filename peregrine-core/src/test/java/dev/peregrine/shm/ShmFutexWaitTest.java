package dev.peregrine.shm;

import dev.peregrine.testkit.Needs;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ShmFutexWait}'s steps on an injected clock: the spins, the yield window, the sleep, and the start over after
 * work. The clock moves only when the test says, so the window is exact whatever the machine's load.
 */
class ShmFutexWaitTest {
    private final long[] now = {1_000_000_000L};
    private final List<Long> reads = new ArrayList<>();

    private long clock() {
        reads.add(now[0]);
        return now[0];
    }

    @Test
    void shouldSpinThenWaitForTheWindowThenSleep() {
        Needs.platform("a futex", ShmFutex::unavailableReason);
        final ShmFutexWait wait = new ShmFutexWait(3, 100, this::clock);

        for (int i = 0; i < 3; i++) {
            assertThat(wait.spinsNext()).as("spin %d next", i).isTrue();
            assertThat(wait.readyToSleep(0)).as("spin %d", i).isFalse();
        }
        assertThat(wait.spinsNext()).as("the spins spent").isFalse();
        assertThat(reads).as("spinning reads no clock").isEmpty();
        assertThat(wait.readyToSleep(0)).as("the first step starts the window").isFalse();
        now[0] += 99;
        assertThat(wait.readyToSleep(0)).as("inside the window").isFalse();
        now[0] += 1;
        assertThat(wait.readyToSleep(0)).as("the window spent").isTrue();
        assertThat(wait.readyToSleep(0)).as("asleep until work comes").isTrue();
        assertThat(reads).hasSize(4);
    }

    @Test
    void shouldStartOverAfterWork() {
        Needs.platform("a futex", ShmFutex::unavailableReason);
        final ShmFutexWait wait = new ShmFutexWait(1, 100, this::clock);
        assertThat(wait.readyToSleep(0)).isFalse(); // spin
        assertThat(wait.readyToSleep(0)).isFalse(); // window opens
        now[0] += 100;
        assertThat(wait.readyToSleep(0)).isTrue();

        assertThat(wait.readyToSleep(1)).as("work").isFalse();
        assertThat(wait.readyToSleep(0)).as("spins again").isFalse();
        assertThat(wait.readyToSleep(0)).as("a new window opens at the time of now").isFalse();
        now[0] += 99;
        assertThat(wait.readyToSleep(0)).as("the new window, not the old one").isFalse();
        now[0] += 1;
        assertThat(wait.readyToSleep(0)).isTrue();
    }

    /**
     * The window yields {@link ShmFutexWait#WINDOW_YIELDS} times, then parks until it is spent: a yield gives a core
     * straight back to a reader alone on it, a park lets it go idle (docs/broadcast-bcast13.md). Fails if the window
     * only yields.
     */
    @Test
    void shouldYieldAFewTimesThenParkForTheRestOfTheWindow() {
        Needs.platform("a futex", ShmFutex::unavailableReason);
        final ShmFutexWait wait = new ShmFutexWait(0, 1_000, this::clock);
        for (int i = 0; i < ShmFutexWait.WINDOW_YIELDS; i++) {
            assertThat(wait.readyToSleep(0)).as("yield %d", i).isFalse();
        }
        assertThat(wait.parks()).as("yields first").isZero();
        now[0] += 10;
        assertThat(wait.readyToSleep(0)).isFalse();
        now[0] += 10;
        assertThat(wait.readyToSleep(0)).isFalse();
        assertThat(wait.parks()).as("then parks").isEqualTo(2);
        now[0] += 980;
        assertThat(wait.readyToSleep(0)).as("the window spent").isTrue();
        assertThat(wait.parks()).isEqualTo(2);

        assertThat(wait.readyToSleep(1)).as("work").isFalse();
        assertThat(wait.readyToSleep(0)).as("a new window").isFalse();
        assertThat(wait.parks()).as("yields again first").isEqualTo(2);
    }

    @Test
    void shouldSleepRightAfterTheSpinsWithoutAWindow() {
        Needs.platform("a futex", ShmFutex::unavailableReason);
        final ShmFutexWait wait = new ShmFutexWait(2, 0, this::clock);
        assertThat(wait.readyToSleep(0)).isFalse();
        assertThat(wait.readyToSleep(0)).isFalse();
        assertThat(wait.readyToSleep(0)).isTrue();
        assertThat(reads).isEmpty();
        assertThat(new ShmFutexWait(0).readyToSleep(0)).as("no spins, no window: asleep at once").isTrue();
    }

    @Test
    void shouldRefuseNegativeParametersByName() {
        Needs.platform("a futex", ShmFutex::unavailableReason);
        assertThatThrownBy(() -> new ShmFutexWait(-1, 0)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("maxSpins=-1");
        assertThatThrownBy(() -> new ShmFutexWait(0, -5)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("windowNs=-5");
    }
}
