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
    void shouldFireAtTheFirstPollAtOrAfterTheDeadline() {
        final TimerWheel wheel = new TimerWheel(0, TICK, 8);
        final List<Long> firedAt = new ArrayList<>();
        wheel.schedule(5_000, (timerId, cookie, nowNs) -> firedAt.add(nowNs), 1);
        assertThat(wheel.poll(4_999, 100)).isZero();
        assertThat(firedAt).isEmpty();
        long now = 4_999;
        while (firedAt.isEmpty() && now < 10_000) {
            now += 100;
            wheel.poll(now, 100);
        }
        assertThat(firedAt).as("polls at 4 999 and 5 099: the first at or after 5 000").containsExactly(5_099L);
        assertThat(wheel.timerCount()).isZero();
    }

    @Test
    void shouldFireAtADeadlineInTheMiddleOfATickWhenPolledExactlyThen() {
        final TimerWheel wheel = new TimerWheel(0, TICK, 8);
        final List<Long> firedAt = new ArrayList<>();
        final long deadline = 3 * TICK + TICK / 2;
        wheel.schedule(deadline, (timerId, cookie, nowNs) -> firedAt.add(nowNs), 1);
        for (long now = 0; now < deadline; now += 7) {
            wheel.poll(now, 100);
        }
        assertThat(firedAt).isEmpty();
        wheel.poll(deadline, 100);
        assertThat(firedAt).containsExactly(deadline);
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
    void shouldFireADueTimerScheduledFromAHandlerInTheSlotItFreedWhenThePollIsPastTheTick() {
        final TimerWheel wheel = new TimerWheel(0, TICK, 8);
        final TimerHandler catchingUp = new TimerHandler() {
            @Override
            public void onTimer(final long timerId, final long cookie, final long nowNs) {
                fired.add(cookie);
                if (cookie == 1) {
                    wheel.schedule(200, this, 2); // a periodic timer catching up: its next deadline is already past
                }
            }
        };
        wheel.schedule(100, catchingUp, 1);

        wheel.poll(TICK * 3, 100); // late: tick 0, where both land, is long over

        // not a wheel turn (8 ticks) later: the scan went back for the slot the first timer had just freed
        assertThat(fired).containsExactly(1L, 2L);
        assertThat(wheel.timerCount()).isZero();
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
        // zero tolerance once the JIT has settled: the first whole set of 20 windows that allocates nothing, at most 5
        final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(200_000, 20_000, 20, 5, () -> {
            now[0] += 300;
            wheel.schedule(now[0] + 5_000, noop, 0);
            final long id = wheel.schedule(now[0] + 9_000, noop, 0);
            wheel.cancel(id);
            wheel.poll(now[0], 64);
        });
        assertThat(measured.totalBytes()).as("bytes in the last set of %d", measured.sets()).isZero();
    }

    /**
     * A model check: whatever the schedule, the poll times (steps within a tick and across many revolutions) and
     * the cancellations, every timer that is not cancelled fires exactly once, at the first poll at or after its
     * deadline that follows its scheduling (never before, never later), and a cancelled one never.
     */
    @Property(tries = 300)
    void shouldFireEveryTimerExactlyOnceAtTheFirstPollAtOrAfterItsDeadline(
        @ForAll @Size(min = 1, max = 60) final List<@IntRange(min = 1, max = 3 * 16 * 1024) Integer> steps,
        @ForAll @IntRange(min = 1, max = 8) final int timersPerStep,
        @ForAll final long seed) {
        final TimerWheel wheel = new TimerWheel(0, TICK, 16);
        final Random random = new Random(seed);
        final List<Long> deadlines = new ArrayList<>();
        final List<Long> scheduledAt = new ArrayList<>();
        final List<Long> ids = new ArrayList<>();
        final List<Boolean> cancelled = new ArrayList<>();
        final List<List<Long>> firedAt = new ArrayList<>();
        final List<Long> polls = new ArrayList<>();
        final TimerHandler handler = (timerId, cookie, nowNs) -> firedAt.get((int)cookie).add(nowNs);
        long now = 0;
        for (final int step : steps) {
            for (int i = 0; i < random.nextInt(timersPerStep + 1); i++) {
                // past deadlines too (due at the next poll), up to about ten revolutions ahead
                final long deadline = now - 2 * TICK + (long)(random.nextDouble() * 160 * TICK);
                final int cookie = deadlines.size();
                deadlines.add(deadline);
                scheduledAt.add(now);
                firedAt.add(new ArrayList<>());
                ids.add(wheel.schedule(deadline, handler, cookie));
                cancelled.add(false);
            }
            if (!ids.isEmpty() && random.nextInt(4) == 0) {
                final int victim = random.nextInt(ids.size());
                if (firedAt.get(victim).isEmpty() && !cancelled.get(victim)) {
                    assertThat(wheel.cancel(ids.get(victim))).isTrue();
                    cancelled.set(victim, true);
                }
            }
            now += step;
            wheel.poll(now, 10_000);
            polls.add(now);
        }
        for (int i = 0; i < 200; i++) { // past every deadline
            now += 4 * TICK;
            wheel.poll(now, 10_000);
            polls.add(now);
        }

        for (int i = 0; i < deadlines.size(); i++) {
            if (cancelled.get(i)) {
                assertThat(firedAt.get(i)).as("cancelled timer %d", i).isEmpty();
                continue;
            }
            final long earliest = deadlines.get(i);
            final long after = scheduledAt.get(i);
            final long expected = polls.stream().filter(t -> t > after && t >= earliest).findFirst().orElseThrow();
            assertThat(firedAt.get(i)).as("timer %d, deadline %d, scheduled at %d", i, earliest, after)
                .containsExactly(expected);
        }
        assertThat(wheel.timerCount()).isZero();
    }
}
