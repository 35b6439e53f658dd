package dev.peregrine.testkit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The meter the "allocates nothing" tests rely on can see an allocation, and sees none where there is none. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AllocationMeterTest {
    private static Object sink;

    @Test
    void shouldSeeAnAllocationInEveryIterationInEveryWindow() {
        final AllocationMeter.Windows measured = AllocationMeter.windows(1_000, 1_000, 3, () -> sink = new long[4]);

        assertThat(measured.allocatingWindows()).isEqualTo(3);
        assertThat(measured.totalBytes()).as("a long[4] is at least 48 bytes, in each of 3 windows")
            .isGreaterThanOrEqualTo(3L * 1_000 * 48);
    }

    @Test
    void shouldSeeAnAllocationRarerThanOnePerWindow() {
        final int window = 1_000;
        final long[] iteration = {0};
        // one allocation every three windows: most windows are quiet, so the quietest window is 0 bytes
        final Runnable rare = () -> {
            if (++iteration[0] % (3 * window) == 0) {
                sink = new long[4];
            }
        };
        final AllocationMeter.Windows measured = new AllocationMeter.Windows(window);
        for (int w = 0; w < 12; w++) {
            measured.begin();
            for (int i = 0; i < window; i++) {
                rare.run();
            }
            measured.end();
        }

        assertThat(measured.quietest()).as("what the quietest window alone would have said").isZero();
        assertThat(measured.allocatingWindows()).as("windows 3, 6, 9 and 12, and any JIT event").isGreaterThanOrEqualTo(4);
        assertThat(measured.totalBytes()).isGreaterThanOrEqualTo(4 * 48);
        iteration[0] = 0;
        final AllocationMeter.Windows sets = AllocationMeter.firstCleanSet(0, window, 12, 5, rare);
        assertThat(sets.sets()).as("four allocations in every set of 12 windows: never clean").isEqualTo(5);
        assertThat(sets.totalBytes()).isGreaterThanOrEqualTo(4 * 48);
    }

    @Test
    void shouldSeeAnAllocationInMostWindowsThroughTheMedian() {
        final AllocationMeter.Windows measured = new AllocationMeter.Windows(1);
        for (int w = 0; w < 5; w++) {
            measured.begin();
            if (w != 2) {
                sink = new byte[64];
            }
            measured.end();
        }

        assertThat(measured.quietest()).isZero();
        assertThat(measured.median()).isGreaterThanOrEqualTo(64);
        assertThat(measured.totalBytes()).isGreaterThanOrEqualTo(4 * 64);
    }

    @Test
    void shouldForgiveNothingWithZeroTolerance() {
        final int window = 1_000;
        final long[] iteration = {0};
        final Runnable once = () -> { // one allocation in 10 000 iterations: what a one-in-five window ratio forgave
            if (++iteration[0] == 5 * window) {
                sink = new long[4];
            }
        };
        final AllocationMeter.Windows measured = AllocationMeter.windows(0, window, 10, once);

        assertThat(measured.allocatingWindows()).isGreaterThanOrEqualTo(1);
        assertThat(measured.totalBytes()).as("a long[4] is at least 48 bytes").isGreaterThanOrEqualTo(48);
        iteration[0] = 0;
        // a JIT event of the test's own loop may land after any fixed warm-up (96 and 144 bytes in a window seen):
        // zero tolerance in the first set of windows that is clean
        assertThat(AllocationMeter.firstCleanSet(50_000, window, 10, 5, () -> iteration[0]++).totalBytes()).isZero();
    }

    @Test
    void shouldFindNothingWhereNothingIsAllocatedAndRunEveryWindow() {
        final long[] counter = {0};

        final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(1_000, 1_000, 10, 5, () -> counter[0]++);

        assertThat(measured.totalBytes()).isZero();
        assertThat(measured.count()).isEqualTo(10);
        assertThat(counter[0]).isEqualTo(1_000 + 10_000L * measured.sets());
    }

    @Test
    void shouldKeepEveryWindowMeasuredByHand() {
        final AllocationMeter.Windows measured = new AllocationMeter.Windows(1);

        measured.begin();
        sink = new byte[64];
        assertThat(measured.end()).isGreaterThanOrEqualTo(64);
        measured.begin();
        assertThat(measured.end()).isZero();

        assertThat(measured.count()).isEqualTo(2);
        assertThat(measured.quietest()).isZero();
        assertThat(measured.allocatingWindows()).isEqualTo(1);
    }

    @Test
    void shouldMeasureAnotherThreadFromTheCallingOne() throws Exception {
        final CountDownLatch go = new CountDownLatch(1);
        final CountDownLatch allocated = new CountDownLatch(1);
        final CountDownLatch measured = new CountDownLatch(1);
        final Thread other = new Thread(() -> { // alive until measured: a thread that ended has no figure (-1)
            try {
                go.await();
                sink = new byte[4096];
                allocated.countDown();
                measured.await();
            } catch (final InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }, "allocation-meter-other");
        other.start();
        final AllocationMeter.Windows windows = new AllocationMeter.Windows(1, other.threadId());

        windows.begin();
        go.countDown();
        assertThat(allocated.await(60, TimeUnit.SECONDS)).isTrue();
        final long bytes = windows.end();
        measured.countDown();
        other.join(TimeUnit.SECONDS.toMillis(60));
        assertThat(bytes).as("the other thread's byte[4096]").isGreaterThanOrEqualTo(4096);
    }

    @Test
    void shouldMeasureAnotherSetOnlyUntilOneWholeSetIsClean() {
        final long[] iteration = {0};
        final Runnable early = () -> { // allocates in the first set only, as code C2 has not yet compiled does
            if (++iteration[0] == 51_500) {
                sink = new long[4];
            }
        };
        final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(50_000, 1_000, 4, 5, early);

        assertThat(measured.totalBytes()).isZero();
        // the second set, or a later one should a JIT event of the test's own loop land in the second
        assertThat(measured.sets()).isBetween(2, 5);
        assertThat(iteration[0]).isEqualTo(50_000 + 4_000L * measured.sets());
    }

    @Test
    void shouldNeverFindACleanSetWhenSomethingAllocatesOncePerSet() {
        final long[] iteration = {0};
        final Runnable oncePerSet = () -> {
            if (++iteration[0] % 4_000 == 2_500) {
                sink = new long[4];
            }
        };
        final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(0, 1_000, 4, 5, oncePerSet);

        assertThat(measured.sets()).isEqualTo(5);
        assertThat(measured.totalBytes()).as("a long[4] is at least 48 bytes").isGreaterThanOrEqualTo(48);
        assertThat(measured.allocatingWindows()).as("the third window, and any JIT event").isGreaterThanOrEqualTo(1);
        assertThat(iteration[0]).isEqualTo(20_000);
    }

    @Test
    void shouldMeasureSetsOnTwoThreadsUntilBothAreCleanInTheSameSet() throws Exception {
        final AllocationMeter.CleanSets sets = new AllocationMeter.CleanSets(2, 5);
        final long[] quiet = {0};
        final CompletableFuture<AllocationMeter.Windows> far = CompletableFuture.supplyAsync(() -> {
            final long[] iteration = {0};
            final Runnable warm = () -> iteration[0]++;
            AllocationMeter.bytesAllocatedBy(50_000, 0, warm);
            final long first = iteration[0];
            // allocates in the far thread's first set only: the near thread's clean first set is not the verdict
            return sets.measure(1_000, 4, () -> {
                if (++iteration[0] == first + 1_500) {
                    sink = new long[4];
                }
            });
        });
        AllocationMeter.bytesAllocatedBy(50_000, 0, () -> quiet[0]++);
        final AllocationMeter.Windows near = sets.measure(1_000, 4, () -> quiet[0]++);
        final AllocationMeter.Windows farSet = far.get(60, TimeUnit.SECONDS);

        assertThat(sets.sets()).as("the second set, or later after a JIT event").isBetween(2, 5);
        assertThat(near.sets()).isEqualTo(sets.sets());
        assertThat(farSet.sets()).isEqualTo(sets.sets());
        assertThat(near.totalBytes()).isZero();
        assertThat(farSet.totalBytes()).isZero();
        assertThat(quiet[0]).isEqualTo(50_000 + 4_000L * sets.sets());
    }

    @Test
    void shouldNeverAgreeOnACleanSetWhenOneThreadAllocatesOncePerSet() throws Exception {
        final AllocationMeter.CleanSets sets = new AllocationMeter.CleanSets(2, 5);
        final CompletableFuture<AllocationMeter.Windows> far = CompletableFuture.supplyAsync(() -> {
            final long[] iteration = {0};
            return sets.measure(1_000, 4, () -> {
                if (++iteration[0] % 4_000 == 2_500) {
                    sink = new long[4];
                }
            });
        });
        final long[] quiet = {0};
        final AllocationMeter.Windows near = sets.measure(1_000, 4, () -> quiet[0]++);

        assertThat(far.get(60, TimeUnit.SECONDS).totalBytes()).as("a long[4] in the far thread's last set")
            .isGreaterThanOrEqualTo(48);
        assertThat(near.sets()).isEqualTo(5);
        assertThat(quiet[0]).isEqualTo(20_000);
    }

    @Test
    void shouldRefuseNoPartiesOrNoSets() {
        assertThatThrownBy(() -> new AllocationMeter.CleanSets(0, 5)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("parties=0");
        assertThatThrownBy(() -> new AllocationMeter.CleanSets(2, 0)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("maxSets=0");
    }
}
