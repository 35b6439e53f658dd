package dev.peregrine.peers;

import dev.peregrine.peers.nio.NioBenchTransport;

class NioBenchTransportTest extends BenchTransportConformanceTest {
    @Override
    BenchTransport transport() {
        return new NioBenchTransport();
    }

    /** Two spinning threads (responder, client) fit two cores; backing off would only add park latency. */
    @Override
    boolean busySpin() {
        return true;
    }

    @Override
    boolean batchesUntilFlush() {
        return true;
    }
}
