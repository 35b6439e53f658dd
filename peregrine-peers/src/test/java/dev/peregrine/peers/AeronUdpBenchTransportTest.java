package dev.peregrine.peers;

import dev.peregrine.peers.aeron.AeronUdpBenchTransport;
import org.junit.jupiter.api.Tag;

/**
 * Aeron over UDP: an embedded media driver and two Aeron clients per test, so tagged slow.
 */
@Tag("slow")
class AeronUdpBenchTransportTest extends BenchTransportConformanceTest {
    @Override
    BenchTransport transport() {
        return new AeronUdpBenchTransport();
    }

    /**
     * The shared driver thread, the responder and the client all spinning take turns of milliseconds on a
     * two-core machine; backing off keeps this test short and tests the same code.
     */
    @Override
    boolean busySpin() {
        return false;
    }
}
