package dev.peregrine.handoff;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.Transport;
import dev.peregrine.reactor.ErrorHandler;
import dev.peregrine.reactor.Pollable;
import dev.peregrine.reactor.Reactor;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;

import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_ACCEPTED;
import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_CLOSED;
import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_CONNECTED;
import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_CONNECT_FAILED;
import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_LISTENING;
import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_LISTEN_FAILED;
import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_MESSAGE;
import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_SENT;

/**
 * The reactor's half of a separated stack (AsyncTCP's term): the transport lives on the reactor thread, the
 * application's unchanged {@link ChannelHandler} on a thread of its own, and the two exchange encoded records.
 *
 * <ul>
 *   <li>Events: this is the transport's handler. It encodes every event into a one-to-one {@link WorkerRing} that
 *       the application thread's {@link SeparatedAgent} reads: messages as their bytes, with no allocation;
 *       connection events with their addresses and texts (see {@link EventCodec}: an address allocates its bytes
 *       once per connection event).</li>
 *   <li>Commands: the application's {@link SeparatedTransport} encodes sends, closes and aborts into the
 *       {@link ReactorCommandRing}, and listen and connect as requests that this stack carries out on the reactor
 *       thread, answering the new id.</li>
 * </ul>
 *
 * <p>When the event ring is full, as with a {@link WorkerDemux}: a {@link ReadPausable} transport's channel stops
 * reading and its message waits in a backlog, moved into the ring (and the channel resumed) as room appears; other
 * events wait there too, so nothing is reordered. Without one (UDP) a message is dropped and counted
 * ({@link #dropped()}). A full backlog or a message longer than the ring's maximum is dropped, counted
 * ({@link #overflowed()}) and reported.
 *
 * <p>Set-up, on the reactor thread or before it starts:
 * <pre>{@code
 * SeparatedStack stack = new SeparatedStack(reactor, commands, 1 << 20);
 * TcpTransport tcp = new TcpTransport(reactor, options, stack);
 * SeparatedTransport transport = stack.attach(tcp);        // the application's Transport
 * SeparatedAgent agent = new SeparatedAgent(stack, new MyHandler(transport), errors, 64);
 * new WorkerRunner("app", agent, new YieldingIdleStrategy(), -1).start(); // or agent.doWork() in a loop of one's own
 * }</pre>
 *
 * <p>An application thread that idles in a {@link SeparatedSleepIdleStrategy} sleeps on a futex; the stack wakes it
 * ({@code FUTEX_WAKE}) after writing an event into the ring, only when it announced its sleep. While that strategy
 * exists, each event written costs the reactor a full fence; without it, nothing.
 *
 * <p>Threading: every method is for the reactor thread (construction and {@link #attach} before the transport
 * delivers), except the counters, which any thread may read. Nothing allocates per message.
 */
public final class SeparatedStack implements ChannelHandler, Pollable, AutoCloseable {
    static final int REQUEST_LISTEN = 1;
    static final int REQUEST_CONNECT = 2;
    static final int REQUEST_CLOSE_ALL = 3;
    /** An answer that is no id: the transport threw, see {@link #failure()}. */
    static final long FAILED = Long.MIN_VALUE;

    private static final int RESUME_FLAG = 0x100;
    private static final int SCRATCH = 2048;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

    private final Reactor reactor;
    private final ErrorHandler errorHandler;
    private final ReactorCommandRing commands;
    private final WorkerRing events;
    private final WorkerRing backlog;
    private final Arena arena;
    private final MemorySegment scratch;
    private final int room;
    private final ApplicationWake applicationWake;
    private volatile boolean wakeUps;
    private Transport transport;
    private ReadPausable pausable;
    private SeparatedTransport facade;
    private volatile long answer;
    private volatile long answeredRequest;
    private volatile RuntimeException failure;
    private volatile long dropped;
    private volatile long overflowed;
    private volatile long paused;

    /**
     * Makes the event ring and adds the stack to the reactor's duty cycle; reactor thread or before it starts.
     *
     * @param reactor the reactor of the transport
     * @param commands the command ring the application's sends and requests travel through
     * @param ringCapacity bytes of the event ring and of its backlog (see {@link WorkerRing#WorkerRing(int)}); the
     *     longest message it carries is {@link WorkerRingDescriptor#maxMessageLength(int)}
     */
    public SeparatedStack(final Reactor reactor, final ReactorCommandRing commands, final int ringCapacity) {
        if (reactor == null || commands == null) {
            throw new IllegalArgumentException("reactor=" + reactor + ", commands=" + commands + ": none may be null");
        }
        this.reactor = reactor;
        this.errorHandler = reactor.errorHandler();
        this.commands = commands;
        this.events = new WorkerRing(ringCapacity);
        this.backlog = new WorkerRing(ringCapacity);
        this.room = Math.min(SCRATCH, events.maxMessageLength());
        this.arena = Arena.ofShared();
        this.scratch = arena.allocate(SCRATCH, 8);
        this.applicationWake = new ApplicationWake();
        reactor.add(this);
        reactor.addWakeCondition(this::hasMovableBacklog);
    }

    /**
     * Names the transport this stack is the handler of, registers it with the command ring, and gives the facade
     * the application uses in its place; once, on the reactor thread or before it starts.
     *
     * @param transport the transport, made with this stack as its handler
     * @return the application's transport
     * @throws IllegalStateException if a transport is attached already
     */
    public SeparatedTransport attach(final Transport transport) {
        if (transport == null) {
            throw new IllegalArgumentException("transport=null");
        }
        if (this.transport != null) {
            throw new IllegalStateException("a transport is attached already: " + this.transport);
        }
        this.transport = transport;
        this.pausable = transport instanceof ReadPausable readPausable ? readPausable : null;
        final int transportIndex = commands.register(transport);
        final int requestIndex = commands.register(new Requests());
        this.facade = new SeparatedTransport(this, commands, transportIndex, requestIndex,
            Math.min(commands.maxMessageLength(), events.maxMessageLength()));
        return facade;
    }

    /**
     * The application's transport, once {@link #attach attached}.
     *
     * @return the facade
     * @throws IllegalStateException before {@link #attach}
     */
    public SeparatedTransport transport() {
        if (facade == null) {
            throw new IllegalStateException("no transport attached");
        }
        return facade;
    }

    /**
     * Messages dropped because the event ring was full and the transport cannot pause (UDP).
     *
     * @return a count
     */
    public long dropped() {
        return dropped;
    }

    /**
     * Events dropped because the backlog was full, or a message longer than the event ring takes; each reported.
     *
     * @return a count
     */
    public long overflowed() {
        return overflowed;
    }

    /**
     * Times a channel's reading was paused for a full event ring.
     *
     * @return a count
     */
    public long paused() {
        return paused;
    }

    WorkerRing events() {
        return events;
    }

    ErrorHandler errorHandler() {
        return errorHandler;
    }

    /** The sequence of the last request answered; read before {@link #answer()}. */
    long answeredRequest() {
        return answeredRequest;
    }

    long answer() {
        return answer;
    }

    RuntimeException failure() {
        return failure;
    }

    @Override
    public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
        if (length > events.maxMessageLength()) {
            overflow(channelId, "a message of length=" + length + " exceeds the event ring's maxMessageLength="
                + events.maxMessageLength());
            return;
        }
        if (backlog.isEmpty() && events.tryWrite(TYPE_MESSAGE, channelId, buffer, offset, length)) {
            wakeApplication();
            return;
        }
        final ReadPausable pausable = this.pausable;
        if (pausable == null) {
            dropped = dropped + 1;
            return;
        }
        if (!backlog.tryWrite(TYPE_MESSAGE | RESUME_FLAG, channelId, buffer, offset, length)) {
            overflow(channelId, "the backlog is full");
            return;
        }
        paused = paused + 1;
        pausable.pauseReading(channelId);
    }

    @Override
    public void onListening(final long serverId, final SocketAddress localAddress) {
        control(TYPE_LISTENING, serverId, EventCodec.putAddress(scratch, 0, localAddress, room));
    }

    @Override
    public void onListenFailed(final long serverId, final String reason) {
        control(TYPE_LISTEN_FAILED, serverId, EventCodec.putText(scratch, 0, reason, room));
    }

    @Override
    public void onAccepted(final long serverId, final long channelId, final SocketAddress remoteAddress) {
        scratch.set(LONG, 0, serverId);
        control(TYPE_ACCEPTED, channelId, 8 + EventCodec.putAddress(scratch, 8, remoteAddress, room - 8));
    }

    @Override
    public void onConnected(final long channelId, final SocketAddress remoteAddress) {
        control(TYPE_CONNECTED, channelId, EventCodec.putAddress(scratch, 0, remoteAddress, room));
    }

    @Override
    public void onConnectFailed(final long channelId, final String reason) {
        control(TYPE_CONNECT_FAILED, channelId, EventCodec.putText(scratch, 0, reason, room));
    }

    @Override
    public void onSent(final long channelId, final long bytesWritten, final long bytesBuffered) {
        scratch.set(LONG, 0, bytesWritten);
        scratch.set(LONG, 8, bytesBuffered);
        control(TYPE_SENT, channelId, 16);
    }

    @Override
    public void onClosed(final long channelId, final CloseReason reason, final String detail) {
        scratch.set(INT, 0, reason.ordinal());
        control(TYPE_CLOSED, channelId, 4 + EventCodec.putText(scratch, 4, detail, room - 4));
    }

    /**
     * Moves the backlog into the event ring as room appears, resuming the channels whose message moved; reactor
     * thread.
     *
     * @param nowNs the cycle's clock (unused)
     * @return events moved
     */
    @Override
    public int doWork(final long nowNs) {
        if (backlog.isEmpty()) {
            return 0;
        }
        final int moved = backlog.moveTo(events, RESUME_FLAG, pausable);
        if (moved > 0) {
            wakeApplication();
        }
        return moved;
    }

    /**
     * Stops polling and frees the rings; reactor thread, once the application thread has stopped. The transport
     * and the command ring are the caller's to close.
     */
    @Override
    public void close() {
        reactor.remove(this);
        events.close();
        backlog.close();
        applicationWake.close();
        arena.close();
    }

    private void control(final int type, final long id, final int length) {
        if (backlog.isEmpty() && events.tryWrite(type, id, scratch, 0, length)) {
            wakeApplication();
            return;
        }
        if (!backlog.tryWrite(type, id, scratch, 0, length)) {
            overflow(id, "the backlog is full for a connection event of type=" + type);
        }
    }

    private void overflow(final long channelId, final String why) {
        overflowed = overflowed + 1;
        errorHandler.onError(new IllegalStateException("separated stack of reactor " + reactor.name()
            + ": dropped an event of channelId=" + channelId + ": " + why));
    }

    /** Wakes an application thread asleep in a {@link SeparatedSleepIdleStrategy}, once an event is published. */
    private void wakeApplication() {
        if (wakeUps) {
            applicationWake.wake();
        }
    }

    /**
     * Turns on the wake-ups of a sleeping application thread: from now on each event written costs the reactor a
     * full fence, and a {@code FUTEX_WAKE} when the application sleeps. Before the application thread starts.
     */
    ApplicationWake enableApplicationWakeUps() {
        wakeUps = true;
        return applicationWake;
    }

    /** Whether the application thread has work: an event to read, or closes to retry. Application thread. */
    boolean applicationHasWork() {
        final SeparatedTransport facade = this.facade;
        return !events.isEmpty() || facade != null && facade.pending() > 0;
    }

    /**
     * Times the reactor woke the application thread from a sleep ({@link SeparatedSleepIdleStrategy}).
     *
     * @return a count
     */
    public long applicationWakeUps() {
        return applicationWake.wakes();
    }

    /**
     * Sleeps the application thread began ({@link SeparatedSleepIdleStrategy}), each ended by a wake-up, its
     * timeout or a spurious return.
     *
     * @return a count
     */
    public long applicationSleeps() {
        return applicationWake.sleeps();
    }

    /** The wake condition: the backlog's next event fits the event ring now. */
    private boolean hasMovableBacklog() {
        final int length = backlog.nextLength();
        return length >= 0 && events.hasRoomFor(length);
    }

    /**
     * The application's listen, connect and close-all requests, registered with the command ring as a transport
     * of their own so that they keep their order with the sends around them: a request is a send whose channel id
     * is its sequence and whose payload is its kind and address. Carried out on the reactor thread.
     */
    private final class Requests implements Transport {
        @Override
        public long send(final long sequence, final MemorySegment buffer, final long offset, final int length) {
            final int kind = buffer.get(INT, offset);
            long id = FAILED;
            try {
                if (kind == REQUEST_LISTEN) {
                    id = transport.listen(EventCodec.getAddress(buffer, offset + 4, length - 4));
                } else if (kind == REQUEST_CONNECT) {
                    id = transport.connect(EventCodec.getAddress(buffer, offset + 4, length - 4));
                } else if (kind == REQUEST_CLOSE_ALL) {
                    transport.close();
                    id = 0;
                } else {
                    failure = new IllegalStateException("request kind=" + kind + " is not one");
                }
            } catch (final RuntimeException ex) {
                failure = ex;
            }
            answer = id;
            answeredRequest = sequence; // after the answer: the application reads the sequence first
            return 0;
        }

        @Override
        public long listen(final SocketAddress localAddress) {
            throw new UnsupportedOperationException("requests travel as sends");
        }

        @Override
        public long connect(final SocketAddress remoteAddress) {
            throw new UnsupportedOperationException("requests travel as sends");
        }

        @Override
        public void close(final long id) {
            // nothing: only sends are requests
        }

        @Override
        public void close() {
            // nothing: the application's transport is closed by a request
        }
    }
}
