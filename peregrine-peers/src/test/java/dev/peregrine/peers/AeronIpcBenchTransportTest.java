package dev.peregrine.peers;

import dev.peregrine.peers.aeron.AeronIpcBenchTransport;
import org.junit.jupiter.api.Tag;

/**
 * Aeron over IPC: an embedded media driver and two Aeron clients per test, so tagged slow.
 */
@Tag("slow")
class AeronIpcBenchTransportTest extends BenchTransportConformanceTest {
    @Override
    BenchTransport transport() {
        return new AeronIpcBenchTransport();
    }
}
