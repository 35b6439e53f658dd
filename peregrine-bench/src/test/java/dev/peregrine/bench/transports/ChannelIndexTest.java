package dev.peregrine.bench.transports;

import dev.peregrine.testkit.AllocationMeter;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ChannelIndexTest {
    /** Ids shaped as TcpTransport makes them: a generation in the high half, a slot in the low. */
    private static long id(final int generation, final int slot) {
        return (long)generation << 32 | slot;
    }

    @Test
    void shouldFindEveryMemberByItsIdAmongAThousand() {
        final ChannelIndex index = new ChannelIndex(1000);
        for (int k = 0; k < 1000; k++) {
            index.put(id(1, k), k);
        }

        for (int k = 0; k < 1000; k++) {
            assertThat(index.member(id(1, k))).as("member %d", k).isEqualTo(k);
        }
    }

    @Test
    void shouldNameNoMemberForAStaleOrUnknownId() {
        final ChannelIndex index = new ChannelIndex(5);
        for (int k = 0; k < 5; k++) {
            index.put(id(2, k), k);
        }

        assertThat(index.member(id(1, 3))).as("an older generation of slot 3").isEqualTo(-1);
        assertThat(index.member(id(2, 5))).as("a slot never recorded").isEqualTo(-1);
        assertThat(index.member(0)).isEqualTo(-1);
        assertThat(index.member(-1)).isEqualTo(-1);
    }

    @Test
    void shouldRefuseAnIdTwiceAndMoreIdsThanItsCapacityAllows() {
        final ChannelIndex index = new ChannelIndex(1);
        index.put(7, 0);

        assertThatThrownBy(() -> index.put(7, 1)).isInstanceOf(IllegalArgumentException.class)
            .hasMessage("id=7 already belongs to member 0");
        assertThatThrownBy(() -> index.put(0, 1)).isInstanceOf(IllegalArgumentException.class)
            .hasMessage("id=0 must be positive");
        assertThatThrownBy(() -> index.put(8, 1)).isInstanceOf(IllegalStateException.class)
            .hasMessage("index full: capacity=1");
        assertThat(index.member(9)).as("a miss still ends: the table stays half empty").isEqualTo(-1);
    }

    @Test
    void shouldLookUpWithoutAllocating() {
        final ChannelIndex index = new ChannelIndex(64);
        for (int k = 0; k < 64; k++) {
            index.put(id(3, k), k);
        }
        final int[] sum = new int[1];

        // zero tolerance once the JIT has settled: the first whole set of ten windows that allocates nothing, at most 5
        final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(10_000, 1_000, 10, 5, () -> {
            for (int k = 0; k < 64; k++) {
                sum[0] += index.member(id(3, k));
            }
        });

        assertThat(measured.totalBytes()).as("bytes in the last set of %d", measured.sets()).isZero();
        assertThat(sum[0]).isPositive();
    }
}
