package dev.peregrine.peers.nassau;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.StreamLoss;

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
    private final long[] echoes = new long[1024];
    private long head;
    private long tail;
    private IllegalStateException replyFailure;

    NassauPingClient(final BenchConfig config) throws IOException {
        this.replySize = config.replySize();
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
                    + NassauMoldBenchTransport.sequence(echo)
                    + ", expected replySize=" + replySize);
            }
            return;
        }
        if (tail - head == echoes.length) {
            throw new IllegalStateException("more than " + echoes.length + " echoes waiting");
        }
        echoes[(int)(tail++ & (echoes.length - 1))] = NassauMoldBenchTransport.sequence(echo);
    }

    @Override
    public void send(final long sequence) {
        message.clear();
        message.putLong(0, sequence);
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
        return head == tail ? -1 : echoes[(int)(head++ & (echoes.length - 1))];
    }

    @Override
    public void close() {
        subscribing.close();
        publishing.close();
    }
}
