package dev.peregrine.bench.transports;

import dev.peregrine.channel.SendResult;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchMessageLayout;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * Sends with {@code tryClaim}/{@code commit} (the sequence written straight into the outbound buffer)
 * and drives its reactor inside {@link #poll()}; echoes wait in a small ring of sequence numbers, so
 * that several arriving in one cycle (with {@code --rate}) are all returned, one per poll.
 */
final class PeregrineTcpPingClient extends PeregrineTcpClientSide implements BlockingClients.Client {
    private static final int RING_CAPACITY = 1 << 16;

    private final EchoRing echoes;
    /** Bytes of the sequence field ({@link BenchMessageLayout}). */
    private final int sequenceLength;
    private final boolean blocks;
    private long lastSent;

    PeregrineTcpPingClient(final BenchConfig config) throws IOException {
        this(config, false);
    }

    /**
     * @param config where to connect; without busy-spin for a client that blocks
     * @param blocks whether {@link #awaitInput()} sleeps in the selector (the reactor's {@code
     *     BlockingSelectIdleStrategy}) rather than returning at once
     */
    PeregrineTcpPingClient(final BenchConfig config, final boolean blocks) throws IOException {
        super(config, "peregrine-tcp-client");
        this.blocks = blocks;
        this.sequenceLength = config.sequenceLength();
        this.echoes = new EchoRing(RING_CAPACITY, config.replySize(), sequenceLength);
    }

    @Override
    public void send(final long sequence) {
        while (true) {
            final long offset = transport.tryClaim(channelId, size);
            if (offset >= 0) {
                BenchMessageLayout.putSequence(transport.claimBuffer(), offset, sequenceLength, sequence);
                lastSent = sequence;
                final long result = transport.commit();
                if (result < 0) {
                    reactor.doWork();
                    checkConnected();
                    throw new IllegalStateException("send failed: " + SendResult.describe(result));
                }
                return;
            }
            if (offset != SendResult.BACK_PRESSURED) {
                reactor.doWork(); // delivers the close event, with its reason, if the connection is gone
                checkConnected();
                throw new IllegalStateException("send failed: " + SendResult.describe(offset));
            }
            reactor.doWork();
        }
    }

    @Override
    public long poll() {
        if (echoes.isEmpty()) {
            reactor.doWork();
            echoes.throwIfFailed();
            if (echoes.isEmpty()) {
                checkConnected();
                return -1;
            }
        }
        return BenchMessageLayout.widen(echoes.take(), lastSent, sequenceLength);
    }

    @Override
    public void awaitInput() {
        if (blocks) {
            reactor.idle(0); // the caller's poll() found nothing: a cycle without work
        }
    }

    @Override
    public void onMessage(final long id, final MemorySegment buffer, final long offset, final int length) {
        echoes.onReply(buffer, offset, length);
    }
}
