package dev.peregrine.bench.transports;

import dev.peregrine.channel.SendResult;
import dev.peregrine.channel.Transport;
import dev.peregrine.log.AsyncLogger;
import dev.peregrine.log.LoggingHandler;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.tcp.TcpOptions;
import dev.peregrine.tcp.TcpTransport;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The echo side: a reactor on its own thread (busy-spinning when the run asks for it) that sends every
 * message back on the channel it came from, for any number of clients (with a period above 1, only every Nth:
 * {@link BenchConfig#answers}).
 *
 * <p>A client that sends faster than it reads its echoes is slowed, not dropped: once more than half the
 * channel's outbound buffer waits, the responder stops reading that channel ({@link TcpTransport#pauseReading})
 * until the buffer has drained to an eighth, so TCP's flow control holds the client's sends back and memory
 * stays bounded on both sides.
 */
final class PeregrineTcpResponder extends ReactorResponder {
    private static final ValueLayout.OfLong SEQUENCE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final Reactor reactor;
    private final TcpTransport transport;
    private final long pauseAbove;
    private final long resumeBelow;
    /** Bytes of each answer, or -1 to echo each message as it came. */
    private final int replySize;
    /** Bytes of the sequence field an answer copies from its message. */
    private final int sequenceLength;
    /** Answer only the messages {@link BenchConfig#answers} picks with this period; 1 for all. */
    private final int respondEvery;
    private volatile long pauses;

    private final AsyncLogger logger;

    private PeregrineTcpResponder(final BenchConfig config, final boolean manyConnections, final AsyncLogger logger) {
        this.reactor = new Reactor(PeregrineTcpBench.reactorOptions(config, "peregrine-tcp-responder", manyConnections));
        final TcpOptions options = PeregrineTcpBench.options(config, manyConnections);
        this.logger = logger;
        // logged: every event and message goes through the async logger first, as in echo --log FILE --log-messages
        this.transport = new TcpTransport(reactor, options, logger == null ? this : new LoggingHandler(logger, this, true));
        this.pauseAbove = options.outboundBufferSize() / 2;
        this.resumeBelow = options.outboundBufferSize() / 8;
        this.replySize = config.asymmetric() ? config.replySize() : -1;
        this.sequenceLength = config.sequenceLength();
        this.respondEvery = config.respondEvery();
    }

    static PeregrineTcpResponder start(final BenchConfig config) throws IOException, InterruptedException {
        return start(config, false);
    }

    /**
     * Starts a responder.
     *
     * @param manyConnections whether it serves many clients (the load's one-responder topology), which
     *     changes how it reads: see {@link PeregrineTcpBench#options(BenchConfig, boolean)}
     */
    static PeregrineTcpResponder start(final BenchConfig config, final boolean manyConnections)
        throws IOException, InterruptedException {
        return start(config, manyConnections, null);
    }

    /**
     * Starts a responder whose transport's handler logs every event and message through {@code logger} before
     * echoing ({@link LoggingHandler}, as {@code echo --log FILE --log-messages} does); the logger is closed with it.
     */
    static PeregrineTcpResponder start(final BenchConfig config, final boolean manyConnections,
                                       final AsyncLogger logger) throws IOException, InterruptedException {
        final PeregrineTcpResponder responder = new PeregrineTcpResponder(config, manyConnections, logger);
        responder.listenAndStart(PeregrineTcpBench.address(config));
        return responder;
    }

    @Override
    public void close() {
        super.close();
        if (logger != null) {
            logger.close(); // after the reactor: nothing logs any more
        }
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
        if (respondEvery > 1 && !BenchConfig.answers(buffer.get(SEQUENCE, offset), respondEvery)) {
            echoed(); // read, and left unanswered by design
            return;
        }
        final long result = replySize < 0 ? transport.send(channelId, buffer, offset, length)
            : reply(channelId, buffer, offset, length);
        if (result == SendResult.BACK_PRESSURED) {
            // cannot happen while reads pause at half the buffer; an echo is never dropped silently all the same
            reactor.errorHandler().onError(new IllegalStateException("no room for an echo on channel " + channelId
                + " with reading paused at " + pauseAbove + " bytes pending; aborting it"));
            transport.abort(channelId); // it does not read: what waits for it is discarded, not lingered over
            return;
        }
        echoed();
        if (result > pauseAbove && !transport.isReadingPaused(channelId)) {
            transport.pauseReading(channelId); // the client sends faster than it reads: let TCP slow it down
            pauses++;
        }
    }

    /** An answer of {@link #replySize} bytes written in place, starting with the message's sequence field. */
    private long reply(final long channelId, final MemorySegment buffer, final long offset, final int length) {
        final long at = transport.tryClaim(channelId, replySize);
        if (at < 0) {
            return at;
        }
        MemorySegment.copy(buffer, offset, transport.claimBuffer(), at, Math.min(length, sequenceLength));
        return transport.commit();
    }

    @Override
    public void onSent(final long channelId, final long bytesWritten, final long bytesBuffered) {
        if (bytesBuffered < resumeBelow) {
            transport.resumeReading(channelId); // nothing if not paused
        }
    }

    /**
     * How often a channel's reading was paused because its client did not read its echoes fast enough.
     *
     * @return the count
     */
    long pauses() {
        return pauses;
    }

}
