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

}
