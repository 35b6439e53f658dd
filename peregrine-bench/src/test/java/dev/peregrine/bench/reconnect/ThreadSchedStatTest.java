package dev.peregrine.bench.reconnect;

import dev.peregrine.testkit.AllocationMeter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ThreadSchedStatTest {
    @Test
    void shouldReadTheCallingThreadsSchedulerFiguresWithoutAllocating() {
        assumeTrue(Files.isReadable(Path.of("/proc/thread-self/schedstat")), "no /proc/thread-self (not Linux)");
        try (ThreadSchedStat sched = new ThreadSchedStat()) {
            assertThat(sched.available()).isTrue();
            assertThat(sched.read()).as("three fields parsed").isTrue();
            final long cpu = sched.cpuNs();
            final long delay = sched.runDelayNs();
            final long slices = sched.slices();
            assertThat(cpu).isPositive();
            assertThat(slices).isPositive();
            final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            // what --diagnose does on the reactor thread every cycle: a positioned read of the file, a CPU-time read
            final AllocationMeter.Windows windows = AllocationMeter.firstCleanSet(5_000, 1_000, 10, 5, () -> {
                sched.read();
                threads.getCurrentThreadCpuTime();
            });
            assertThat(windows.totalBytes()).as("bytes in the first clean set of %d", windows.sets()).isZero();
            assertThat(sched.cpuNs()).as("cumulative figures do not go back").isGreaterThanOrEqualTo(cpu);
            assertThat(sched.runDelayNs()).isGreaterThanOrEqualTo(delay);
            assertThat(sched.slices()).isGreaterThanOrEqualTo(slices);
        }
    }
}
