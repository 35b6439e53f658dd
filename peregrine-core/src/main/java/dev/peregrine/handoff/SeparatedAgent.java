package dev.peregrine.handoff;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.reactor.ErrorHandler;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_ACCEPTED;
import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_CLOSED;
import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_CONNECTED;
import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_CONNECT_FAILED;
import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_LISTENING;
import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_LISTEN_FAILED;
import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_MESSAGE;
import static dev.peregrine.handoff.WorkerRingDescriptor.TYPE_SENT;

/**
 * The application thread's half of a separated stack: reads the {@link SeparatedStack}'s event ring and calls the
 * application's unchanged {@link ChannelHandler}, in the order the reactor saw the events, on this thread. Call
 * {@link #doWork()} from a {@link WorkerRunner} (the reactor's idle strategies, optional pinning) or from a loop of
 * the application's own, always the same thread; the handler's {@link SeparatedTransport} belongs to it too.
 *
 * <p>Messages are views into the ring, valid during the call only, with no allocation. Connection events decode
 * their address or text into a new value (one per event).
 *
 * <p>A handler call that throws is caught here: it is counted ({@link #failures()}) and reported, its channel is
 * closed through the command ring (its {@code onClosed} then says {@link CloseReason#LOCAL}, the reason the
 * transport gives an application's close), and every other channel goes on.
 *
 * <p>Threading: not thread-safe, one application thread; the counters may be read anywhere.
 */
public final class SeparatedAgent {
    private static final CloseReason[] REASONS = CloseReason.values();
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

    private final WorkerRing events;
    private final SeparatedTransport transport;
    private final ChannelHandler handler;
    private final ErrorHandler errorHandler;
    private final int readLimit;
    private final WorkerRing.RecordReader reader = this::deliver;
    private long current;
    private volatile long failures;

    /**
     * Makes the agent of a stack whose transport is attached.
     *
     * @param stack the reactor's half
     * @param handler the application, which issues its commands through {@link SeparatedStack#transport()}
     * @param errorHandler gets handler failures, on this thread; must be thread-safe if shared
     * @param readLimit most events one {@link #doWork()} delivers, at least 1
     */
    public SeparatedAgent(final SeparatedStack stack, final ChannelHandler handler, final ErrorHandler errorHandler,
                          final int readLimit) {
        if (stack == null || handler == null || errorHandler == null) {
            throw new IllegalArgumentException("stack=" + stack + ", handler=" + handler + ", errorHandler="
                + errorHandler + ": none may be null");
        }
        if (readLimit < 1) {
            throw new IllegalArgumentException("readLimit=" + readLimit);
        }
        this.events = stack.events();
        this.transport = stack.transport();
        this.handler = handler;
        this.errorHandler = errorHandler;
        this.readLimit = readLimit;
    }

    /**
     * Retries the closes a full command ring held back, then delivers up to the read limit of events; the
     * application thread.
     *
     * @return events delivered (work done, for an idle strategy)
     */
    public int doWork() {
        if (transport.pending() > 0) {
            transport.retryPending();
        }
        int delivered = 0;
        while (delivered < readLimit) {
            final long before = events.readCount();
            try {
                final int read = events.readRecords(reader, readLimit - delivered);
                delivered += read;
                if (read == 0) {
                    break;
                }
            } catch (final RuntimeException ex) {
                delivered += (int)(events.readCount() - before); // the record that threw is consumed
                fail(current, ex);
            }
        }
        return delivered;
    }

    /**
     * The same as {@link #doWork()}, for a loop of the application's own.
     *
     * @return events delivered
     */
    public int poll() {
        return doWork();
    }

    /**
     * Handler calls that threw.
     *
     * @return a count
     */
    public long failures() {
        return failures;
    }

    private void deliver(final int type, final long id, final MemorySegment buffer, final long offset, final int length) {
        current = id;
        if (type == TYPE_MESSAGE) {
            handler.onMessage(id, buffer, offset, length);
        } else if (type == TYPE_SENT) {
            handler.onSent(id, buffer.get(LONG, offset), buffer.get(LONG, offset + 8));
        } else if (type == TYPE_ACCEPTED) {
            transport.opened(id);
            handler.onAccepted(buffer.get(LONG, offset), id, EventCodec.getAddress(buffer, offset + 8, length - 8));
        } else if (type == TYPE_CONNECTED) {
            transport.opened(id);
            handler.onConnected(id, EventCodec.getAddress(buffer, offset, length));
        } else if (type == TYPE_CLOSED) {
            transport.forget(id);
            final String detail = length > 4 ? EventCodec.getText(buffer, offset + 4, length - 4) : "";
            handler.onClosed(id, REASONS[buffer.get(INT, offset)], detail);
        } else if (type == TYPE_LISTENING) {
            handler.onListening(id, EventCodec.getAddress(buffer, offset, length));
        } else if (type == TYPE_LISTEN_FAILED) {
            transport.forget(id);
            handler.onListenFailed(id, EventCodec.getText(buffer, offset, length));
        } else if (type == TYPE_CONNECT_FAILED) {
            transport.forget(id);
            handler.onConnectFailed(id, EventCodec.getText(buffer, offset, length));
        }
    }

    private void fail(final long channelId, final RuntimeException ex) {
        failures = failures + 1;
        transport.close(channelId); // an id already closed is ignored
        errorHandler.onError(new IllegalStateException("separated stack's handler threw for channelId=" + channelId
            + "; the channel is being closed", ex));
    }
}
