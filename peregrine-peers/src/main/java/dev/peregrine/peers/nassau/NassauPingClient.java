package dev.peregrine.peers.nassau;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.StreamLoss;
import dev.peregrine.peers.support.BenchMessageLayout;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The measuring side: publishes each ping in a packet of its own on the PING session to the responder's
 * feed ({@code port}, PING request server on {@code port + 2}) and follows the PONG session on
 * {@code port + 1}; the calling thread polls everything.
 */
final class NassauPingClient implements PingClient {
    private final NassauPublishing publishing;
    private final NassauSubscribing subscribing;
    private final ByteBuffer message;
    private final int replySize;
    private final int sequenceLength;
    private final long[] echoes = new long[1024];
    private long head;
    private long tail;
    private long lastSent;
    private IllegalStateException replyFailure;

    NassauPingClient(final BenchConfig config) throws IOException {
        this.replySize = config.replySize();
        this.sequenceLength = config.sequenceLength();
        this.message = ByteBuffer.allocateDirect(config.size()).order(NassauMoldBenchTransport.ORDER);
        this.subscribing = new NassauSubscribing(NassauMoldBenchTransport.address(config, 1),
            NassauMoldBenchTransport.address(config, 3), this::onEcho);
        try {
            this.publishing = new NassauPublishing(NassauMoldBenchTransport.PING, NassauMoldBenchTransport.address(config, 0),
                NassauMoldBenchTransport.address(config, 2), StreamLoss.NONE);
        } catch (final IOException ex) {
            subscribing.close();
            throw ex;
        }
    }

    private void onEcho(final ByteBuffer echo) {
        if (echo.remaining() != replySize) {
            if (replyFailure == null) {
                replyFailure = new IllegalStateException("reply of length=" + echo.remaining() + " to sequence="
                    + NassauMoldBenchTransport.sequence(echo, sequenceLength)
                    + ", expected replySize=" + replySize);
            }
            return;
        }
        if (tail - head == echoes.length) {
            throw new IllegalStateException("more than " + echoes.length + " echoes waiting");
        }
        echoes[(int)(tail++ & (echoes.length - 1))] = NassauMoldBenchTransport.sequence(echo, sequenceLength);
    }

    @Override
    public void send(final long sequence) {
        message.clear();
        BenchMessageLayout.putSequence(message, 0, sequenceLength, sequence);
        lastSent = sequence;
        publishing.put(message);
        publishing.send();
    }

    @Override
    public long poll() {
        if (head == tail) {
            subscribing.receive();
            publishing.serve();
            if (replyFailure != null) {
                throw replyFailure;
            }
        }
        return head == tail ? -1
            : BenchMessageLayout.widen(echoes[(int)(head++ & (echoes.length - 1))], lastSent, sequenceLength);
    }

    @Override
    public void close() {
        subscribing.close();
        publishing.close();
    }
}
