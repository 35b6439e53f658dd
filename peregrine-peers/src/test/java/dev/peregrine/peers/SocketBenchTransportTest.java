package dev.peregrine.peers;

import dev.peregrine.peers.socket.SocketBenchTransport;

class SocketBenchTransportTest extends BenchTransportConformanceTest {
    @Override
    BenchTransport transport() {
        return new SocketBenchTransport();
    }

    @Override
    boolean batchesUntilFlush() {
        return true;
    }
}
