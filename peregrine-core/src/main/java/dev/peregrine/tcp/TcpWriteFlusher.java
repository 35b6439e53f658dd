package dev.peregrine.tcp;

import dev.peregrine.reactor.Pollable;

import java.util.Arrays;

/**
 * The connections of a transport that have bytes appended since their last write ("dirty"), written once
 * each at the end of every duty cycle: whatever a cycle's commands, select callbacks, timers and the
 * application's own code between cycles sent on a channel leaves in one write, not one per message. A
 * connection is listed once however many sends it took (its own flag says whether it is listed); the list
 * holds slot indexes and grows only when a new high of dirty connections is reached, so a steady state
 * allocates nothing.
 *
 * <pre>
 *  0                         count               length
 *  +-------------------------+-------------------+
 *  | dirty slot indexes      | free              |
 *  +-------------------------+-------------------+
 * </pre>
 */
final class TcpWriteFlusher implements Pollable {
    private final TcpTransport transport;
    private final TcpConnectionPool connections;
    private int[] dirty = new int[16];
    private int count;

    TcpWriteFlusher(final TcpTransport transport, final TcpConnectionPool connections) {
        this.transport = transport;
        this.connections = connections;
    }

    /** Lists a connection that has just become dirty; the caller keeps it from being listed twice. */
    void add(final TcpConnection connection) {
        if (count == dirty.length) {
            dirty = Arrays.copyOf(dirty, count * 2);
        }
        dirty[count++] = connection.index();
    }

    int count() {
        return count;
    }

    /**
     * Aborts a claim left open past the cycle that opened it, then writes every dirty connection once. A
     * handler called from here (say {@code onClosed} for a failed write) may send on another connection:
     * it is listed behind and written in this same walk.
     */
    @Override
    public int doWork(final long nowNs) {
        transport.claim().abortLeftOpen();
        return writeListed();
    }

    /**
     * The pass at the start of a cycle ({@link dev.peregrine.reactor.Reactor#addAtCycleStart}): writes what the
     * application sent between two cycles, before the selector, the timers and the reads, so that a request does
     * not wait behind a read that cannot yet hold its answer. A claim still open is left alone (its bytes do not
     * move); the end of the cycle deals with it.
     *
     * @return the work done
     */
    int doWorkAtCycleStart(final long nowNs) {
        return count == 0 ? 0 : writeListed();
    }

    private int writeListed() {
        int work = 0;
        for (int i = 0; i < count; i++) {
            final TcpConnection connection = connections.slot(dirty[i]);
            try {
                work += connection.sender().flushDirty();
            } catch (final Throwable ex) {
                transport.handlerFailed(connection, ex);
            }
        }
        count = 0;
        return work;
    }
}
