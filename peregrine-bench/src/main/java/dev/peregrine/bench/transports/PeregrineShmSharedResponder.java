package dev.peregrine.bench.transports;

import dev.peregrine.channel.SendResult;
import dev.peregrine.channel.Transport;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.reactor.IdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.shm.ShmOptions;
import dev.peregrine.shm.ShmTransport;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.UnixDomainSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The echo side of {@code bench load}'s shared topology over shared memory: one {@link ShmTransport} on one
 * reactor thread accepts every client's rendezvous and polls every connection's inbound ring in each cycle,
 * echoing each message on the ring it came from. The rings are polled, not selected, so the reactor's idle
 * strategy polls too: busy-spin or back-off, as the adapter's own responder waits.
 *
 * <p>An echo that finds its outbound ring full waits for that client to read (its client thread polls every
 * client in turn, so it does); a client that reads nothing for {@value #STALL_LIMIT_MS} ms is closed, with the
 * reason, so that it cannot hold the others up for ever.
 */
final class PeregrineShmSharedResponder extends ReactorResponder {
    private static final long STALL_LIMIT_MS = 1_000;

    private final Reactor reactor;
    private final ShmTransport transport;
    /** The answer of another size than the message, starting with its sequence field; null to echo. */
    private final MemorySegment reply;
    /** Bytes of the sequence field a reply copies from its message. */
    private final int sequenceLength;

    private PeregrineShmSharedResponder(final ShmOptions options, final IdleStrategy idle, final BenchConfig config) {
        this.reactor = new Reactor(new ReactorOptions().name("peregrine-shm-responder").idleStrategy(idle));
        this.transport = new ShmTransport(reactor, options, this);
        this.reply = config.asymmetric() ? Arena.ofAuto().allocate(config.replySize(), 8) : null;
        this.sequenceLength = config.sequenceLength();
    }

    /**
     * Starts the responder and waits until it listens.
     *
     * @param address the rendezvous socket
     * @param options the rings' options, as the clients' adapter makes them
     * @param idle how the reactor waits between messages: a strategy that polls
     * @param config the run's configuration
     * @return the listening responder
     * @throws IOException if it does not listen within 10 s
     * @throws InterruptedException if interrupted while waiting
     */
    static PeregrineShmSharedResponder start(final UnixDomainSocketAddress address, final ShmOptions options,
                                             final IdleStrategy idle, final BenchConfig config)
        throws IOException, InterruptedException {
        final PeregrineShmSharedResponder responder = new PeregrineShmSharedResponder(options, idle, config);
        responder.listenAndStart(address);
        return responder;
    }

    @Override
    Reactor reactor() {
        return reactor;
    }

    @Override
    Transport transport() {
        return transport;
    }

    @Override
    public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
        long result;
        if (reply == null) {
            result = transport.send(channelId, buffer, offset, length);
        } else {
            MemorySegment.copy(buffer, offset, reply, 0, Math.min(length, sequenceLength));
            result = transport.send(channelId, reply, 0, (int)reply.byteSize());
        }
        if (result == SendResult.BACK_PRESSURED) {
            final long giveUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STALL_LIMIT_MS);
            do { // the ring is the wire: it frees as soon as that client's turn comes
                Thread.onSpinWait();
                result = reply == null ? transport.send(channelId, buffer, offset, length)
                    : transport.send(channelId, reply, 0, (int)reply.byteSize());
            } while (result == SendResult.BACK_PRESSURED && System.nanoTime() - giveUp < 0);
        }
        if (result < 0) {
            reactor.errorHandler().onError(new IllegalStateException("no echo on shared-memory channel " + channelId
                + ": " + SendResult.describe(result) + (result == SendResult.BACK_PRESSURED ? " for " + STALL_LIMIT_MS
                + " ms; closing it" : "")));
            transport.close(channelId);
            return;
        }
        echoed();
    }
}
