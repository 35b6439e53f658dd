package dev.peregrine.peers;

import dev.peregrine.bench.transports.PeregrineSoupBench;

/**
 * The peers' conformance suite on {@code peregrine-soup}, run from the bench module where the transport lives (the
 * suite comes from the peers' test jar, hence this package).
 */
class PeregrineSoupConformanceTest extends BenchTransportConformanceTest {
    @Override
    BenchTransport transport() {
        return new PeregrineSoupBench();
    }
}
