package dev.peregrine.mold;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The retransmission timer of the subscriber's requests, against hand-computed RFC 6298 values. */
class MoldUDP64RequestTimeoutTest {
    @Test
    void shouldWaitTheConfiguredTimeUntilARoundTripIsMeasured() {
        final MoldUDP64RequestTimeout timeout = new MoldUDP64RequestTimeout(10_000_000L, 80_000_000L);

        assertThat(timeout.waitNs(1)).isEqualTo(10_000_000L);
        assertThat(timeout.waitNs(2)).isEqualTo(20_000_000L);
        assertThat(timeout.waitNs(4)).isEqualTo(80_000_000L);
        assertThat(timeout.waitNs(5)).as("capped").isEqualTo(80_000_000L);
        assertThat(timeout.waitNs(Integer.MAX_VALUE)).isEqualTo(80_000_000L);
    }

    @Test
    void shouldFollowTheSmoothedRoundTripPlusFourDeviations() {
        final MoldUDP64RequestTimeout timeout = new MoldUDP64RequestTimeout(10_000_000L, 80_000_000L);

        timeout.sample(200_000L); // srtt 200, dev 100
        assertThat(timeout.waitNs(1)).isEqualTo(600_000L);
        timeout.sample(600_000L); // dev 100 + (400 - 100) / 4 = 175, srtt 200 + 400 / 8 = 250
        assertThat(timeout.waitNs(1)).isEqualTo(950_000L);
        assertThat(timeout.waitNs(3)).isEqualTo(3_800_000L);
        assertThat(timeout.samples()).isEqualTo(2);
    }

    @Test
    void shouldKeepTheFirstWaitBetweenTheFloorAndTheConfiguredTimeout() {
        final MoldUDP64RequestTimeout fast = new MoldUDP64RequestTimeout(10_000_000L, 80_000_000L);
        fast.sample(4_000L);
        assertThat(fast.waitNs(1)).isEqualTo(MoldUDP64RequestTimeout.MIN_TIMEOUT_NS);

        final MoldUDP64RequestTimeout slow = new MoldUDP64RequestTimeout(10_000_000L, 80_000_000L);
        slow.sample(50_000_000L);
        assertThat(slow.waitNs(1)).isEqualTo(10_000_000L);
        assertThat(slow.waitNs(2)).isEqualTo(20_000_000L);
    }

    @Test
    void shouldSumTheConfiguredWaitsOfTheAttemptsWhateverTheMeasuredRoundTrip() {
        final MoldUDP64RequestTimeout timeout = new MoldUDP64RequestTimeout(100_000_000L, 1_000_000_000L);
        timeout.sample(50_000L);

        assertThat(timeout.configuredWaitsNs(1)).isEqualTo(100_000_000L);
        assertThat(timeout.configuredWaitsNs(10)).as("100 + 200 + 400 + 800 + 6 * 1000 ms").isEqualTo(7_500_000_000L);
        assertThat(timeout.configuredWaitsNs(Integer.MAX_VALUE))
            .isEqualTo(1_500_000_000L + (Integer.MAX_VALUE - 4L) * 1_000_000_000L);
        assertThat(new MoldUDP64RequestTimeout(100_000L, Long.MAX_VALUE).configuredWaitsNs(Integer.MAX_VALUE))
            .as("saturated, not wrapped").isEqualTo(Long.MAX_VALUE);
    }
}
