package dev.peregrine.peers.nassau;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.RecoveringStreamSender;
import dev.peregrine.peers.StreamLoss;
import dev.peregrine.peers.StreamSender;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * One-way sender: packs messages into full packets of the STREAM session to the receiver's feed
 * ({@code port}); after each batch it sends the packet being filled and serves requests ({@code port + 2}).
 */
final class NassauStreamSender implements RecoveringStreamSender {
    private final NassauPublishing publishing;
    private final ByteBuffer message;

    NassauStreamSender(final BenchConfig config, final StreamLoss loss) throws IOException {
        this.message = ByteBuffer.allocateDirect(config.size()).order(NassauMoldBenchTransport.ORDER);
        this.publishing = new NassauPublishing(NassauMoldBenchTransport.STREAM, NassauMoldBenchTransport.address(config, 0),
            NassauMoldBenchTransport.address(config, 2), loss);
    }

    @Override // compiled in this class, the loop's call of offer(long) is this class's alone
    public int offer(final long firstSequence, final int count) {
        return StreamSender.offerEach(this, firstSequence, count);
    }

    @Override
    public boolean offer(final long sequence) {
        message.clear();
        message.putLong(0, sequence);
        publishing.put(message);
        return true;
    }

    @Override
    public boolean flush() {
        publishing.send();
        publishing.serve();
        return true;
    }

    @Override
    public int service() {
        return publishing.serve();
    }

    @Override
    public long packetsDropped() {
        return publishing.dropped();
    }

    @Override
    public void close() {
        publishing.close();
    }
}
