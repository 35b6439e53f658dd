package dev.peregrine.peers.nassau;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.RecoveringStreamReceiver;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.function.LongConsumer;

/**
 * One-way receiver: a Nassau client on the STREAM session's feed ({@code port}) recovering from the
 * sender's request server ({@code port + 2}), polled by the caller's thread.
 */
final class NassauStreamReceiver implements RecoveringStreamReceiver {
    private final NassauSubscribing subscribing;
    private LongConsumer sequences;
    private int delivered;

    NassauStreamReceiver(final BenchConfig config) throws IOException {
        this.subscribing = new NassauSubscribing(NassauMoldBenchTransport.address(config, 0),
            NassauMoldBenchTransport.address(config, 2), this::onMessage);
    }

    private void onMessage(final ByteBuffer message) {
        delivered++;
        sequences.accept(NassauMoldBenchTransport.sequence(message));
    }

    @Override
    public void recoveryLatencies(final LongConsumer nanos) {
        subscribing.recoveryLatencies(nanos);
    }

    @Override
    public int poll(final LongConsumer sequences) {
        this.sequences = sequences;
        delivered = 0;
        subscribing.receive();
        this.sequences = null;
        return delivered;
    }

    @Override
    public void close() {
        subscribing.close();
    }
}
