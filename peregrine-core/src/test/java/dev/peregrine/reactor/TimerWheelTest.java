package dev.peregrine.reactor;

import dev.peregrine.testkit.AllocationMeter;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TimerWheelTest {
    private static final long TICK = 1024;

    private final List<Long> fired = new ArrayList<>();
    private final TimerHandler recorder = (timerId, cookie, nowNs) -> fired.add(cookie);

    @Test
    void shouldFireOnlyAtOrAfterDeadline() {
        final TimerWheel wheel = new TimerWheel(0, TICK, 8);
        wheel.schedule(5_000, recorder, 1);
        assertThat(wheel.poll(4_999, 100)).isZero();
        assertThat(fired).isEmpty();
        long now = 4_999;
        while (fired.isEmpty() && now < 10_000) {
            now += 100;
            wheel.poll(now, 100);
        }
        assertThat(fired).containsExactly(1L);
        assertThat(now).isGreaterThanOrEqualTo(5_000);
        assertThat(wheel.timerCount()).isZero();
    }

    @Test
    void shouldFireTimersBeyondOneRevolution() {
        final TimerWheel wheel = new TimerWheel(0, TICK, 4);
        final long deadline = TICK * 4 * 10 + 7; // ten revolutions ahead
        wheel.schedule(deadline, recorder, 9);
        for (long now = 0; now < deadline; now += TICK / 2) {
            wheel.poll(now, 100);
        }
        assertThat(fired).isEmpty();
        for (long now = deadline; now < deadline + 2 * TICK; now += TICK / 2) {
            wheel.poll(now, 100);
        }
        assertThat(fired).containsExactly(9L);
    }

    @Test
    void shouldNotFireCancelledTimer() {
        final TimerWheel wheel = new TimerWheel(0, TICK, 8);
        final long id = wheel.schedule(100, recorder, 1);
        wheel.schedule(100, recorder, 2);
        assertThat(wheel.cancel(id)).isTrue();
        assertThat(wheel.cancel(id)).isFalse();
        wheel.poll(TICK * 2, 100);
        assertThat(fired).containsExactly(2L);
    }

    @Test
    void shouldFirePastDeadlineOnNextPollEvenAfterRowWasScanned() {
        final TimerWheel wheel = new TimerWheel(0, TICK, 8);
        final long[] scheduledInsideHandler = new long[1];
        wheel.schedule(10, (timerId, cookie, nowNs) -> {
            fired.add(cookie);
            scheduledInsideHandler[0] = wheel.schedule(nowNs - 5, recorder, 2); // already due
        }, 1);
        wheel.poll(20, 100);
        wheel.poll(21, 100);
        assertThat(fired).containsExactly(1L, 2L);
    }

    @Test
    void shouldRespectLimitAndResumeWhereItStopped() {
        final TimerWheel wheel = new TimerWheel(0, TICK, 8);
        for (int i = 0; i < 40; i++) {
            wheel.schedule(10, recorder, i); // 40 > initial row length: forces growth
        }
        assertThat(wheel.poll(100, 15)).isEqualTo(15);
        assertThat(wheel.poll(100, 100)).isEqualTo(25);
        assertThat(fired).hasSize(40).doesNotHaveDuplicates();
    }

    @Test
    void shouldRejectBadGeometry() {
        assertThatThrownBy(() -> new TimerWheel(0, 1000, 8)).hasMessageContaining("tickResolutionNs=1000");
        assertThatThrownBy(() -> new TimerWheel(0, 1024, 6)).hasMessageContaining("ticksPerWheel=6");
    }

    @Test
    void shouldScheduleAndExpireWithoutAllocating() {
        final TimerWheel wheel = new TimerWheel(0, TICK, 64);
        final TimerHandler noop = (timerId, cookie, nowNs) -> {
        };
        final long[] now = {0};
        final long bytes = AllocationMeter.steadyStateBytes(200_000, 20_000, 20, () -> {
            now[0] += 300;
            wheel.schedule(now[0] + 5_000, noop, 0);
            final long id = wheel.schedule(now[0] + 9_000, noop, 0);
            wheel.cancel(id);
            wheel.poll(now[0], 64);
        });
        assertThat(bytes).isZero();
    }

    /** A model check: whatever the schedule, every timer fires exactly once, never early. */
    @Property(tries = 200)
    void shouldFireEveryTimerExactlyOnceAndNeverEarly(
        @ForAll @Size(min = 1, max = 200) final List<@IntRange(min = 0, max = 200_000) Integer> deadlines,
        @ForAll @IntRange(min = 1, max = 5_000) final int step,
        @ForAll final long seed) {
        final TimerWheel wheel = new TimerWheel(0, TICK, 16);
        final long[] firedAt = new long[deadlines.size()];
        final int[] fireCount = new int[deadlines.size()];
        final TimerHandler handler = (timerId, cookie, nowNs) -> {
            fireCount[(int)cookie]++;
            firedAt[(int)cookie] = nowNs;
        };
        final Random random = new Random(seed);
        final List<Long> ids = new ArrayList<>();
        for (int i = 0; i < deadlines.size(); i++) {
            ids.add(wheel.schedule(deadlines.get(i), handler, i));
        }
        final boolean[] cancelled = new boolean[deadlines.size()];
        for (int i = 0; i < deadlines.size(); i++) {
            if (random.nextInt(10) == 0) {
                cancelled[i] = wheel.cancel(ids.get(i));
            }
        }
        for (long now = 0; now <= 200_000 + 3 * TICK + step; now += step) {
            wheel.poll(now, 1_000);
        }
        for (int i = 0; i < deadlines.size(); i++) {
            assertThat(fireCount[i]).as("timer %d", i).isEqualTo(cancelled[i] ? 0 : 1);
            if (!cancelled[i]) {
                assertThat(firedAt[i]).as("timer %d fired at", i).isGreaterThanOrEqualTo(deadlines.get(i));
            }
        }
        assertThat(wheel.timerCount()).isZero();
    }
}
