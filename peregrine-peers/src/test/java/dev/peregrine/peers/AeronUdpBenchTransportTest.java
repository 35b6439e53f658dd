package dev.peregrine.peers;

import dev.peregrine.peers.aeron.AeronUdpBenchTransport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Aeron over UDP: an embedded media driver and two Aeron clients per test, so tagged slow.
 */
@Tag("slow")
class AeronUdpBenchTransportTest extends BenchTransportConformanceTest {
    @Override
    BenchTransport transport() {
        return new AeronUdpBenchTransport();
    }

    @Test
    void shouldSayPlainlyWhyItCannotBusySpinOnTooFewCores() throws Exception {
        final int cores = Runtime.getRuntime().availableProcessors();
        assertThat(transport().unavailableReason(config(256, false))).isNull();
        final String reason = transport().unavailableReason(config(256, true));
        if (cores < AeronUdpBenchTransport.MIN_CORES_TO_SPIN && !Boolean.getBoolean(AeronUdpBenchTransport.FORCE_PROPERTY)) {
            assertThat(reason).contains("with " + cores + " cores").contains(AeronUdpBenchTransport.FORCE_PROPERTY);
        } else {
            assertThat(reason).isNull();
        }
    }

}
