package dev.peregrine.handoff;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.reactor.ErrorHandler;
import dev.peregrine.reactor.Pollable;
import dev.peregrine.reactor.Reactor;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;

import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_CLOSED;
import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_MESSAGE;
import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_OPENED;

/**
 * Hands a transport's inbound events from the reactor thread to N worker threads, one {@link WorkerRing} each; plug
 * it into the transport in place of the application's own {@link ChannelHandler}.
 *
 * <ul>
 *   <li>A message goes to worker {@code floorMod(hash(key), workers)}, the key from the {@link KeyFunction}
 *       (default: the channel id). Messages with one key keep their order.</li>
 *   <li>{@code onAccepted}, {@code onConnected} and {@code onClosed} go to the worker of the channel id, so that with
 *       the default key a worker sees a channel's open, messages and close in order. With another key, a channel's
 *       messages on other workers are not ordered against its close.</li>
 *   <li>Server events ({@code onListening}, {@code onListenFailed}), {@code onConnectFailed} and {@code onSent} go to
 *       an optional delegate handler, on the reactor thread.</li>
 * </ul>
 *
 * <p>When a worker's ring is full:
 * <ul>
 *   <li>with a {@link #pauseWith ReadPausable} transport (TCP), the message goes to that worker's backlog, its
 *       channel stops reading, and the demux, polled by the reactor, moves the backlog into the ring as room appears
 *       and resumes the channel. Nothing is lost or reordered: while a worker's backlog is not empty every event for
 *       that worker joins it, and a paused channel delivers nothing more. The backlog holds at most one message per
 *       paused channel plus the opens and closes behind them; past its capacity the message is dropped, counted
 *       ({@link #overflowed()}) and reported to the reactor's error handler;</li>
 *   <li>without one (UDP, MoldUDP64), the message is dropped and counted ({@link #dropped()}).</li>
 * </ul>
 * A message longer than the rings' {@link WorkerRing#maxMessageLength()} can never be handed over: it is dropped,
 * counted as overflowed and reported. Keep the transport's maximum frame length within it.
 *
 * <p>Threading: every method is for the reactor thread (construction and {@link #pauseWith} before the transport
 * delivers), except {@link #ring(int)}, which a worker reads once, and the counters, which any thread may read
 * (plain reads, for monitoring). Nothing allocates in steady state.
 */
public final class WorkerDemux implements ChannelHandler, Pollable, AutoCloseable {
    private static final int RESUME_FLAG = 0x100;
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private final Reactor reactor;
    private final ErrorHandler errorHandler;
    private final WorkerRing[] rings;
    private final WorkerRing[] backlogs;
    private final int workers;
    private final KeyFunction keyFunction;
    private final ChannelHandler delegate;
    private final Arena arena;
    private final MemorySegment scratch;
    private ReadPausable pausable;
    private volatile long dropped;
    private volatile long overflowed;
    private volatile long paused;

    /**
     * Makes the rings and adds the demux to the reactor's duty cycle; reactor thread or before it starts.
     *
     * @param reactor the reactor of the transport
     * @param workers how many workers, at least 1
     * @param ringCapacity bytes of each worker's ring and of each backlog (see {@link WorkerRing#WorkerRing(int)})
     * @param keyFunction picks a message's key; {@link KeyFunction#CHANNEL_ID} for per-channel order
     * @param delegate gets the events that are not a channel's, on the reactor thread; null to ignore them
     */
    public WorkerDemux(final Reactor reactor, final int workers, final int ringCapacity, final KeyFunction keyFunction,
                       final ChannelHandler delegate) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers=" + workers);
        }
        if (keyFunction == null) {
            throw new IllegalArgumentException("keyFunction=null");
        }
        this.reactor = reactor;
        this.errorHandler = reactor.errorHandler();
        this.workers = workers;
        this.keyFunction = keyFunction;
        this.delegate = delegate;
        this.rings = new WorkerRing[workers];
        this.backlogs = new WorkerRing[workers];
        for (int i = 0; i < workers; i++) {
            rings[i] = new WorkerRing(ringCapacity);
            backlogs[i] = new WorkerRing(ringCapacity);
        }
        this.arena = Arena.ofShared();
        this.scratch = arena.allocate(8, 8);
        reactor.add(this);
        reactor.addWakeCondition(this::hasMovableBacklog);
    }

    /**
     * Names the transport whose channels to pause when a worker is full; before it delivers. Without one, a full
     * worker's messages are dropped and counted.
     *
     * @param pausable the transport this demux is the handler of
     * @return this
     */
    public WorkerDemux pauseWith(final ReadPausable pausable) {
        this.pausable = pausable;
        return this;
    }

    /**
     * The ring of one worker, for its {@link WorkerAgent}.
     *
     * @param worker from 0
     * @return the ring
     */
    public WorkerRing ring(final int worker) {
        return rings[worker];
    }

    /**
     * How many workers.
     *
     * @return a count
     */
    public int workers() {
        return workers;
    }

    /**
     * The worker a key goes to.
     *
     * @param key a key
     * @return from 0
     */
    public int workerOf(final long key) {
        final long mixed = key * GOLDEN;
        return Math.floorMod((int)(mixed ^ (mixed >>> 32)), workers);
    }

    /**
     * Messages dropped because their worker was full and the transport cannot pause (UDP).
     *
     * @return a count
     */
    public long dropped() {
        return dropped;
    }

    /**
     * Events dropped because a backlog was full, or a message too long for a ring; each reported.
     *
     * @return a count
     */
    public long overflowed() {
        return overflowed;
    }

    /**
     * Times a channel's reading was paused for a full worker.
     *
     * @return a count
     */
    public long paused() {
        return paused;
    }

    @Override
    public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
        final int worker = workerOf(keyFunction.key(channelId, buffer, offset, length));
        final WorkerRing ring = rings[worker];
        if (length > ring.maxMessageLength()) {
            overflow(channelId, "a message of length=" + length + " exceeds the worker ring's maxMessageLength="
                + ring.maxMessageLength());
            return;
        }
        final WorkerRing backlog = backlogs[worker];
        if (backlog.isEmpty() && ring.tryWrite(TYPE_MESSAGE, channelId, buffer, offset, length)) {
            return;
        }
        final ReadPausable pausable = this.pausable;
        if (pausable == null) {
            dropped = dropped + 1;
            return;
        }
        if (!backlog.tryWrite(TYPE_MESSAGE | RESUME_FLAG, channelId, buffer, offset, length)) {
            overflow(channelId, "worker=" + worker + " backlog is full");
            return;
        }
        paused = paused + 1;
        pausable.pauseReading(channelId);
    }

    @Override
    public void onAccepted(final long serverId, final long channelId, final SocketAddress remoteAddress) {
        control(TYPE_OPENED, channelId, 0);
    }

    @Override
    public void onConnected(final long channelId, final SocketAddress remoteAddress) {
        control(TYPE_OPENED, channelId, 0);
    }

    @Override
    public void onClosed(final long channelId, final CloseReason reason, final String detail) {
        scratch.set(ValueLayout.JAVA_INT, 0, reason.ordinal());
        control(TYPE_CLOSED, channelId, 4);
    }

    @Override
    public void onListening(final long serverId, final SocketAddress localAddress) {
        if (delegate != null) {
            delegate.onListening(serverId, localAddress);
        }
    }

    @Override
    public void onListenFailed(final long serverId, final String reason) {
        if (delegate != null) {
            delegate.onListenFailed(serverId, reason);
        }
    }

    @Override
    public void onConnectFailed(final long channelId, final String reason) {
        if (delegate != null) {
            delegate.onConnectFailed(channelId, reason);
        }
    }

    @Override
    public void onSent(final long channelId, final long bytesWritten, final long bytesBuffered) {
        if (delegate != null) {
            delegate.onSent(channelId, bytesWritten, bytesBuffered);
        }
    }

    /**
     * Moves backlogs into worker rings that have room, resuming the channels whose message moved; reactor thread.
     *
     * @param nowNs the cycle's clock (unused)
     * @return events moved
     */
    @Override
    public int doWork(final long nowNs) {
        int moved = 0;
        for (int i = 0; i < workers; i++) {
            final WorkerRing backlog = backlogs[i];
            if (!backlog.isEmpty()) {
                moved += backlog.moveTo(rings[i], RESUME_FLAG, pausable);
            }
        }
        return moved;
    }

    /** Stops polling and frees the rings; reactor thread, once the workers have stopped. */
    @Override
    public void close() {
        reactor.remove(this);
        for (int i = 0; i < workers; i++) {
            rings[i].close();
            backlogs[i].close();
        }
        arena.close();
    }

    private void control(final int type, final long channelId, final int length) {
        final int worker = workerOf(channelId);
        final WorkerRing backlog = backlogs[worker];
        if (backlog.isEmpty() && rings[worker].tryWrite(type, channelId, scratch, 0, length)) {
            return;
        }
        if (!backlog.tryWrite(type, channelId, scratch, 0, length)) {
            overflow(channelId, "worker=" + worker + " backlog is full for an open or close event");
        }
    }

    private void overflow(final long channelId, final String why) {
        overflowed = overflowed + 1;
        errorHandler.onError(new IllegalStateException("worker demux of reactor " + reactor.name() + ": dropped an "
            + "event of channelId=" + channelId + ": " + why));
    }

    /** The wake condition: a backlog whose next event fits its worker's ring now. */
    private boolean hasMovableBacklog() {
        for (int i = 0; i < workers; i++) {
            final int length = backlogs[i].nextLength();
            if (length >= 0 && rings[i].hasRoomFor(length)) {
                return true;
            }
        }
        return false;
    }
}
