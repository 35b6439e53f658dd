package dev.peregrine.handoff;

import dev.peregrine.channel.SendResult;
import dev.peregrine.channel.Transport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;
import java.util.Arrays;

/**
 * The {@link Transport} an application handler is given on the application thread of a separated stack: every
 * call is encoded into the reactor's {@link ReactorCommandRing} and carried out there by the real transport.
 *
 * <ul>
 *   <li>{@link #send}: encoded in place, no allocation. Answers 0 once the command is in the ring (what the
 *       channel buffers is the reactor's to know), or, with nothing taken: {@link SendResult#BACK_PRESSURED} when
 *       the ring is full or the transport was back-pressured in the reactor's last cycle (retry after
 *       {@code onSent}, or on a later poll); {@link SendResult#NOT_CONNECTED} for an id this thread has not seen
 *       accepted or connected, or has seen close; {@link SendResult#CLOSED} after {@link #close(long)} or
 *       {@link #close()}; {@link SendResult#MESSAGE_TOO_LARGE} past {@link #maxMessageLength()}. These refusals
 *       never reach the ring and are counted ({@link #refused()}). A send the reactor then finds closed (the peer
 *       reset it meanwhile) is discarded and counted by the command ring.</li>
 *   <li>{@link #close(long)}, {@link #abort(long)}, {@link #close()}: encoded the same way; when the ring is full
 *       they are kept and retried on each {@link SeparatedAgent#doWork()}. Unknown ids are ignored (counted).</li>
 *   <li>{@link #listen} and {@link #connect}: the id is the real transport's, allocated on the reactor thread. The
 *       request travels through the command ring, in order with the sends before it, and the call waits (yielding)
 *       for the reactor's answer, at most {@link #REQUEST_TIMEOUT_NS}: a round trip, not the connection itself,
 *       which {@code onListening} or {@code onConnected} announce later as usual. A transport that throws throws
 *       here, wrapped. They are connection set-up, not the per-message path: the address is encoded with the
 *       bytes it hands out.</li>
 * </ul>
 *
 * <p>Threading: not thread-safe. One application thread, the one that runs the {@link SeparatedAgent}, or before
 * it starts. What this thread knows of each id comes from the events the agent delivers.
 */
public final class SeparatedTransport implements Transport {
    /** Longest a listen or connect waits for the reactor's answer: ten seconds. */
    public static final long REQUEST_TIMEOUT_NS = 10_000_000_000L;

    private static final int KIND_CLOSE = 1;
    private static final int KIND_ABORT = 2;
    private static final int KIND_CLOSE_ALL = 3;
    private static final int REQUEST_ROOM = 1024;

    private final SeparatedStack stack;
    private final ReactorCommandRing commands;
    private final int transportIndex;
    private final int requestIndex;
    private final int maxMessageLength;
    private final ChannelStates states = new ChannelStates(64);
    private final MemorySegment request = Arena.ofAuto().allocate(REQUEST_ROOM, 8);
    private long[] pendingIds = new long[16];
    private int[] pendingKinds = new int[16];
    private int pendingCount;
    private long requests;
    private boolean closedAll;
    private volatile long refused;

    SeparatedTransport(final SeparatedStack stack, final ReactorCommandRing commands, final int transportIndex,
                       final int requestIndex, final int maxMessageLength) {
        this.stack = stack;
        this.commands = commands;
        this.transportIndex = transportIndex;
        this.requestIndex = requestIndex;
        this.maxMessageLength = maxMessageLength;
    }

    @Override
    public long listen(final SocketAddress localAddress) {
        final long id = request(SeparatedStack.REQUEST_LISTEN, localAddress);
        states.put(id, ChannelStates.SERVER);
        return id;
    }

    @Override
    public long connect(final SocketAddress remoteAddress) {
        final long id = request(SeparatedStack.REQUEST_CONNECT, remoteAddress);
        states.put(id, ChannelStates.CONNECTING);
        return id;
    }

    /**
     * Encodes a send into the command ring; see the class comment for the answers.
     *
     * @return 0 once in the ring, or a negative {@link SendResult} code with nothing taken
     */
    @Override
    public long send(final long channelId, final MemorySegment buffer, final long offset, final int length) {
        final int state = closedAll ? ChannelStates.CLOSING : states.get(channelId);
        if (state != ChannelStates.OPEN) {
            refused = refused + 1;
            return state == ChannelStates.CLOSING ? SendResult.CLOSED : SendResult.NOT_CONNECTED;
        }
        if (length > maxMessageLength) {
            refused = refused + 1;
            return SendResult.MESSAGE_TOO_LARGE;
        }
        return commands.offer(transportIndex, channelId, buffer, offset, length);
    }

    @Override
    public void close(final long id) {
        control(KIND_CLOSE, id);
    }

    @Override
    public void abort(final long id) {
        control(KIND_ABORT, id);
    }

    /** Closes every server and channel of the transport, on the reactor thread; later sends answer CLOSED. */
    @Override
    public void close() {
        if (closedAll) {
            return;
        }
        closedAll = true;
        if (!requestCloseAll()) {
            keep(KIND_CLOSE_ALL, 0);
        }
    }

    /**
     * The longest message {@link #send} takes: what both the command ring and the event ring carry.
     *
     * @return bytes
     */
    public int maxMessageLength() {
        return maxMessageLength;
    }

    /**
     * Sends, closes and aborts refused at this facade (unknown or closed id, message too large); none reached the
     * ring. Readable from any thread.
     *
     * @return a count
     */
    public long refused() {
        return refused;
    }

    /** Closes and aborts waiting for room in the command ring. */
    int pending() {
        return pendingCount;
    }

    /** Retries the closes the full ring refused, in order; the application thread, each agent cycle. */
    void retryPending() {
        int done = 0;
        while (done < pendingCount && issue(pendingKinds[done], pendingIds[done])) {
            done++;
        }
        if (done > 0) {
            System.arraycopy(pendingIds, done, pendingIds, 0, pendingCount - done);
            System.arraycopy(pendingKinds, done, pendingKinds, 0, pendingCount - done);
            pendingCount -= done;
        }
    }

    /** The agent saw the channel accepted or connected. */
    void opened(final long channelId) {
        if (states.get(channelId) != ChannelStates.CLOSING) {
            states.put(channelId, ChannelStates.OPEN);
        }
    }

    /** The agent saw the id close, or fail to connect or listen: it is unknown from now on. */
    void forget(final long id) {
        states.remove(id);
    }

    private void control(final int kind, final long id) {
        final int state = states.get(id);
        if (state == ChannelStates.ABSENT || closedAll) {
            refused = refused + 1; // ignored, as the Transport contract says of unknown ids
            return;
        }
        if (state == ChannelStates.CLOSING && kind == KIND_CLOSE) {
            return;
        }
        states.put(id, ChannelStates.CLOSING);
        if (pendingCount > 0 || !issue(kind, id)) {
            keep(kind, id); // behind the others, so that their order holds
        }
    }

    private boolean issue(final int kind, final long id) {
        if (kind == KIND_CLOSE_ALL) {
            return requestCloseAll();
        }
        final long result = kind == KIND_CLOSE ? commands.close(transportIndex, id) : commands.abort(transportIndex, id);
        return result != ReactorCommandRing.BACK_PRESSURED;
    }

    private void keep(final int kind, final long id) {
        if (pendingCount == pendingIds.length) {
            pendingIds = Arrays.copyOf(pendingIds, pendingCount * 2);
            pendingKinds = Arrays.copyOf(pendingKinds, pendingCount * 2);
        }
        pendingIds[pendingCount] = id;
        pendingKinds[pendingCount] = kind;
        pendingCount++;
    }

    private boolean requestCloseAll() {
        request.set(ValueLayout.JAVA_INT_UNALIGNED, 0, SeparatedStack.REQUEST_CLOSE_ALL);
        return commands.offer(requestIndex, ++requests, request, 0, 4) != ReactorCommandRing.BACK_PRESSURED;
    }

    /** Sends a listen or connect request and waits for the reactor's answer. */
    private long request(final int kind, final SocketAddress address) {
        if (closedAll) {
            throw new IllegalStateException("transport closed: kind=" + kind + ", address=" + address);
        }
        request.set(ValueLayout.JAVA_INT_UNALIGNED, 0, kind);
        final int length = 4 + EventCodec.putAddress(request, 4, address, REQUEST_ROOM - 4);
        final long sequence = ++requests;
        final long deadline = System.nanoTime() + REQUEST_TIMEOUT_NS;
        long result;
        while ((result = commands.offer(requestIndex, sequence, request, 0, length)) == ReactorCommandRing.BACK_PRESSURED) {
            waitUntil(deadline, kind, address);
        }
        if (result != 0) {
            throw new IllegalStateException("request refused by the command ring: result=" + SendResult.describe(result)
                + ", kind=" + kind + ", address=" + address);
        }
        while (stack.answeredRequest() < sequence) {
            waitUntil(deadline, kind, address);
        }
        final long id = stack.answer();
        if (id == SeparatedStack.FAILED) {
            throw new IllegalStateException("the transport refused kind=" + kind + ", address=" + address,
                stack.failure());
        }
        return id;
    }

    private static void waitUntil(final long deadline, final int kind, final SocketAddress address) {
        if (System.nanoTime() - deadline > 0) {
            throw new IllegalStateException("no answer from the reactor within REQUEST_TIMEOUT_NS="
                + REQUEST_TIMEOUT_NS + ": kind=" + kind + ", address=" + address + " (is the reactor running?)");
        }
        Thread.yield();
    }
}
