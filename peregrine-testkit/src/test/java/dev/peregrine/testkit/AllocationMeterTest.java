package dev.peregrine.testkit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The meter the "allocates nothing" tests rely on can see an allocation, and sees none where there is none. */
class AllocationMeterTest {
    private static Object sink;

    @Test
    void shouldSeeAnAllocationInEveryIterationInEveryWindow() {
        final long bytes = AllocationMeter.steadyStateBytes(1_000, 1_000, 3, () -> sink = new long[4]);

        assertThat(bytes).as("a long[4] is at least 48 bytes, in each of 3 windows").isGreaterThanOrEqualTo(3L * 1_000 * 48);
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
        assertThat(measured.steadyStateBytes()).isGreaterThanOrEqualTo(4 * 48);
        iteration[0] = 0;
        assertThat(AllocationMeter.steadyStateBytes(0, window, 12, rare)).isGreaterThanOrEqualTo(4 * 48);
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
        assertThat(measured.steadyStateBytes()).isGreaterThanOrEqualTo(4 * 64);
    }

    @Test
    void shouldForgiveNothingWithZeroTolerance() {
        final int window = 1_000;
        final long[] iteration = {0};
        final Runnable once = () -> { // one allocation in 10 000 iterations: what a one-in-five window ratio forgives
            if (++iteration[0] == 5 * window) {
                sink = new long[4];
            }
        };
        final long bytes = AllocationMeter.bytesInAnyWindow(0, window, 10, once);

        assertThat(bytes).as("a long[4] is at least 48 bytes").isGreaterThanOrEqualTo(48);
        iteration[0] = 0;
        // a JIT event of the test's own loop may land after any fixed warm-up (96 and 144 bytes in a window seen):
        // zero tolerance in the first set of windows that is clean
        assertThat(AllocationMeter.firstCleanSet(50_000, window, 10, 5, () -> iteration[0]++).totalBytes()).isZero();
    }

    @Test
    void shouldTolerateAOneOffAllocationInOneWindowInFive() {
        final AllocationMeter.Windows measured = new AllocationMeter.Windows(1);
        for (int w = 0; w < 10; w++) {
            measured.begin();
            if (w == 0 || w == 7) {
                sink = new byte[64]; // e.g. a deoptimisation, once
            }
            measured.end();
        }

        assertThat(measured.allocatingWindows()).isEqualTo(2);
        assertThat(measured.toleratedWindows()).isEqualTo(2);
        assertThat(measured.median()).isZero();
        assertThat(measured.steadyStateBytes()).isZero();
    }

    @Test
    void shouldFindNothingWhereNothingIsAllocatedAndRunEveryWindow() {
        final long[] counter = {0};

        final long bytes = AllocationMeter.steadyStateBytes(1_000, 1_000, 10, () -> counter[0]++);

        assertThat(bytes).isZero();
        assertThat(counter[0]).isEqualTo(11_000);
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
}
