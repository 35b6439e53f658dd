package dev.peregrine.peers;

import dev.peregrine.peers.nassau.NassauSoupBenchTransport;

/** The conformance suite on Nassau's SoupBinTCP, the peer of {@code peregrine-soup}. */
class NassauSoupBenchTransportTest extends BenchTransportConformanceTest {
    @Override
    BenchTransport transport() {
        return new NassauSoupBenchTransport();
    }
}
