package dev.peregrine.reactor;

import dev.peregrine.internal.jfr.FlightRecording;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A duty cycle that did work and took longer than the threshold is a {@code dev.peregrine.LongDutyCycle}
 * event with its exact length, measured on an injected clock that a pollable moves as if it spun.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ReactorJfrEventsTest {
    private final long[] clock = {1_000_000_000L};

    /** Moves the clock by {@code spinNs} each time it is polled, as a handler spinning that long would. */
    private final class Spinner implements Pollable {
        long spinNs;
        int work;

        @Override
        public int doWork(final long nowNs) {
            clock[0] += spinNs;
            return work;
        }
    }

    @Test
    void shouldRecordACycleThatDidWorkPastTheThresholdWithItsExactDuration() {
        final Spinner spinner = new Spinner();
        try (FlightRecording recording = new FlightRecording();
             Reactor reactor = new Reactor(new ReactorOptions().name("jfr-reactor").clock(() -> clock[0])
                 .longCycleThresholdNs(2_000_000L))) {
            reactor.add(spinner);
            reactor.doWork(); // the first cycle: quick
            spinner.work = 1;
            spinner.spinNs = 2_000_000L;
            reactor.doWork(); // exactly the threshold: not longer
            spinner.spinNs = 7_000_000L;
            reactor.doWork(); // 7 ms with work: recorded at the start of the next cycle
            spinner.work = 0;
            spinner.spinNs = 9_000_000L;
            reactor.doWork(); // 9 ms, no work: the idle strategy may have slept, not recorded
            spinner.spinNs = 0;
            reactor.doWork();
            reactor.doWork();

            final List<RecordedEvent> cycles = ofReactor(recording, "jfr-reactor");
            assertThat(cycles).hasSize(1);
            final RecordedEvent cycle = cycles.getFirst();
            assertThat(cycle.getString("reactor")).isEqualTo("jfr-reactor");
            assertThat(cycle.getLong("cycleDuration")).isEqualTo(7_000_000L);
            assertThat(cycle.getLong("threshold")).isEqualTo(2_000_000L);
            assertThat(cycle.getInt("work")).isEqualTo(1);
        }
    }

    @Test
    void shouldRecordNoLongCycleWhenTheThresholdIsZero() {
        final Spinner spinner = new Spinner();
        try (FlightRecording recording = new FlightRecording();
             Reactor reactor = new Reactor(new ReactorOptions().name("jfr-reactor-off").clock(() -> clock[0])
                 .longCycleThresholdNs(0))) {
            reactor.add(spinner);
            spinner.work = 1;
            spinner.spinNs = 1_000_000_000L;
            reactor.doWork();
            reactor.doWork();
            reactor.doWork();

            assertThat(ofReactor(recording, "jfr-reactor-off")).isEmpty();
        }
    }

    /** This test's events: a reactor of an earlier test may still be running on its own thread. */
    private static List<RecordedEvent> ofReactor(final FlightRecording recording, final String name) {
        return recording.named("LongDutyCycle").stream().filter(event -> event.getString("reactor").equals(name)).toList();
    }

    @Test
    void shouldRefuseANegativeThreshold() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ReactorOptions().longCycleThresholdNs(-1))
            .isInstanceOf(IllegalArgumentException.class).hasMessage("longCycleThresholdNs=-1");
    }
}
