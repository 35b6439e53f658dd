package dev.peregrine.peers;

import dev.peregrine.peers.nio.NioBenchTransport;

class NioBenchTransportTest extends BenchTransportConformanceTest {
    @Override
    BenchTransport transport() {
        return new NioBenchTransport();
    }
}
