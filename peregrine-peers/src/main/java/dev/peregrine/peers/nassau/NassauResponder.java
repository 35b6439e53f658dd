package dev.peregrine.peers.nassau;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchMessageLayout;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.StreamLoss;
import dev.peregrine.peers.support.PeerSupport;
import dev.peregrine.reactor.IdleStrategy;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The echo side: a Nassau client on the PING session ({@code port}) whose listener publishes each message
 * (or a reply of {@link BenchConfig#replySize()} bytes carrying its sequence field) on the PONG session to the
 * client's feed ({@code port + 1}), with the PONG request server on {@code port + 3}; one thread polls all.
 */
final class NassauResponder implements Responder {
    private final NassauSubscribing subscribing;
    private final NassauPublishing publishing;
    private final ByteBuffer reply;
    /** Bytes of the sequence field a reply copies from its message. */
    private final int sequenceLength;
    private final Thread thread;
    private volatile boolean closing;
    private volatile long echoed;

    NassauResponder(final BenchConfig config) throws IOException {
        this.reply = config.asymmetric() ? ByteBuffer.allocateDirect(config.replySize()).order(NassauMoldBenchTransport.ORDER)
            : null;
        this.sequenceLength = config.sequenceLength();
        this.publishing = new NassauPublishing(NassauMoldBenchTransport.PONG, NassauMoldBenchTransport.address(config, 1),
            NassauMoldBenchTransport.address(config, 3), StreamLoss.NONE);
        try {
            this.subscribing = new NassauSubscribing(NassauMoldBenchTransport.address(config, 0),
                NassauMoldBenchTransport.address(config, 2), this::onMessage);
        } catch (final IOException ex) {
            publishing.close();
            throw ex;
        }
        final IdleStrategy idle = PeerSupport.idleStrategy(config);
        this.thread = PeerSupport.start("nassau-mold-responder", () -> {
            while (!closing) {
                final boolean received = subscribing.receive();
                publishing.serve();
                idle.idle(received ? 1 : 0);
            }
        });
    }

    private void onMessage(final ByteBuffer message) {
        if (reply == null) {
            publishing.put(message);
        } else {
            reply.clear();
            BenchMessageLayout.putSequence(reply, 0, sequenceLength,
                NassauMoldBenchTransport.sequence(message, sequenceLength));
            publishing.put(reply);
        }
        publishing.send();
        echoed++;
    }

    @Override
    public long messages() {
        return echoed;
    }

    @Override
    public void close() {
        closing = true;
        PeerSupport.join(thread);
        subscribing.close();
        publishing.close();
    }
}
