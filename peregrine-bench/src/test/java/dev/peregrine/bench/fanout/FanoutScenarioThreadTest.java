package dev.peregrine.bench.fanout;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code --stop-reader} scenario's thread costs the writer's JVM nothing while it waits (it parks until it is
 * told, where it polled every 100 us in the stop run only), and stops and continues reader 0 with {@code kill(2)},
 * without starting a process. A {@code sleep} process stands for reader 0; its state is read from
 * {@code /proc/<pid>/stat}.
 */
@Timeout(60)
class FanoutScenarioThreadTest {
    private static final long DEADLINE_NS = 20_000_000_000L;

    @Test
    void shouldWaitForTheHalfWayParkedThenStopAndContinueReaderZeroWithoutStartingAProcess() throws Exception {
        assertThat(ProcessSignals.unavailableReason()).isNull();
        final Process reader = new ProcessBuilder("sleep", "60").start();
        try {
            final FanoutScenarioThread thread = new FanoutScenarioThread(FanoutRunner.Scenario.STOP_READER, reader);
            thread.start();
            awaitTrue(() -> thread.getState() == Thread.State.WAITING, "parked without a timeout");
            // parked, not polling: still parked without a timeout after other threads ran (no wake-up of its own)
            Thread.yield();
            assertThat(thread.getState()).isEqualTo(Thread.State.WAITING);
            assertThat(state(reader)).isNotEqualTo('T');

            thread.halfway();
            awaitTrue(() -> state(reader) == 'T', "reader 0 stopped");
            assertThat(ProcessHandle.current().children().filter(p -> p.pid() != reader.pid()).count())
                .as("no process started by this JVM but reader 0").isZero();

            thread.othersDone();
            thread.join(DEADLINE_NS / 1_000_000);
            assertThat(thread.isAlive()).isFalse();
            awaitTrue(() -> state(reader) != 'T', "reader 0 continued");
            assertThat(thread.notes(0, 10, 5, 10)).isEmpty();
        } finally {
            reader.destroyForcibly();
        }
    }

    @Test
    void shouldDoNothingToAReaderThatDetachesItself() throws Exception {
        final Process reader = new ProcessBuilder("sleep", "60").start();
        try {
            final FanoutScenarioThread thread = new FanoutScenarioThread(FanoutRunner.Scenario.DETACH_READER, reader);
            thread.start();
            awaitTrue(() -> thread.getState() == Thread.State.WAITING, "parked without a timeout");
            thread.halfway();
            thread.othersDone();
            thread.join(DEADLINE_NS / 1_000_000);
            assertThat(thread.isAlive()).isFalse();
            assertThat(state(reader)).isNotEqualTo('T');
            assertThat(reader.isAlive()).isTrue();
        } finally {
            reader.destroyForcibly();
        }
    }

    private static void awaitTrue(final BooleanSupplier condition, final String what) throws InterruptedException {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("waiting for: " + what).isNegative();
            Thread.sleep(1); // a poll interval only: the deadline fails a wait that hung
        }
    }

    /** The process state letter of /proc/pid/stat (after the command's closing parenthesis). */
    private static char state(final Process process) {
        try {
            final String stat = Files.readString(Path.of("/proc/" + process.pid() + "/stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2);
        } catch (final IOException ex) {
            return '?';
        }
    }
}
