package dev.peregrine.testkit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The meter the "allocates nothing" tests rely on can see an allocation, and sees none where there is none. */
class AllocationMeterTest {
    private static Object sink;

    @Test
    void shouldSeeAnAllocationInEveryIterationInEveryWindow() {
        final long quietest = AllocationMeter.quietestWindowBytes(1_000, 1_000, 3, () -> sink = new long[4]);

        assertThat(quietest).as("a long[4] is at least 48 bytes").isGreaterThanOrEqualTo(1_000L * 48);
    }

    @Test
    void shouldFindAQuietWindowWhereNothingIsAllocated() {
        final long[] counter = {0};

        final long quietest = AllocationMeter.quietestWindowBytes(1_000, 1_000, 10, () -> counter[0]++);

        assertThat(quietest).isZero();
        assertThat(counter[0]).isGreaterThanOrEqualTo(2_000);
    }

    @Test
    void shouldKeepTheFewestBytesOfAnyWindowMeasuredByHand() {
        final AllocationMeter.Windows measured = new AllocationMeter.Windows(1);

        measured.begin();
        sink = new byte[64];
        assertThat(measured.end()).isGreaterThanOrEqualTo(64);
        measured.begin();
        assertThat(measured.end()).isZero();

        assertThat(measured.count()).isEqualTo(2);
        assertThat(measured.quietest()).isZero();
    }
}
