package dev.peregrine.tcp;

import dev.peregrine.reactor.Pollable;

import java.util.Arrays;

/**
 * The connections of a transport that have bytes appended since their last write ("dirty"), written once
 * each at the end of every duty cycle: whatever a cycle's commands, select callbacks, timers and the
 * application's own code between cycles sent on a channel leaves in one write, not one per message. A
 * connection is listed once however many sends it took (its own flag says whether it is listed); the list
 * holds slot indexes and grows only when a new high of dirty connections is reached, so a steady state
 * allocates nothing. The list is written in order; {@link TcpTransport#writeFirst} moves a listed connection into
 * the front part, written before the rest (a swap: each connection knows its index, so it costs no search).
 *
 * <pre>
 *  0                 first                   count               length
 *  +-----------------+-----------------------+-------------------+
 *  | written first   | dirty slot indexes    | free              |
 *  +-----------------+-----------------------+-------------------+
 *  (during a walk, entries before next are written already; the front part starts no earlier than next)
 * </pre>
 */
final class TcpWriteFlusher implements Pollable {
    private final TcpTransport transport;
    private final TcpConnectionPool connections;
    private int[] dirty = new int[16];
    private int count;
    /** Entries before it were moved to the front by {@link #writeFirst}. */
    private int first;
    /** During a walk, the entry written next; 0 otherwise. */
    private int next;

    TcpWriteFlusher(final TcpTransport transport, final TcpConnectionPool connections) {
        this.transport = transport;
        this.connections = connections;
    }

    /** Lists a connection that has just become dirty; the caller keeps it from being listed twice. */
    void add(final TcpConnection connection) {
        if (count == dirty.length) {
            dirty = Arrays.copyOf(dirty, count * 2);
        }
        connection.sender().listedAt(count);
        dirty[count++] = connection.index();
    }

    /**
     * Moves a listed connection in front of every listed connection not moved so far, so that it is written first;
     * the others keep their order but for the one it swaps places with. Called for a listed (dirty) connection only.
     */
    void writeFirst(final TcpConnection connection) {
        final int at = connection.sender().listedAt();
        final int front = Math.max(first, next); // never before an entry this walk has passed
        if (at < front) {
            return; // moved already
        }
        if (at > front) {
            final int other = dirty[front];
            dirty[front] = dirty[at];
            dirty[at] = other;
            connections.slot(other).sender().listedAt(at);
            connection.sender().listedAt(front);
        }
        first = front + 1;
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
        // count is read each time round: a handler called from a write may list another connection behind
        for (next = 0; next < count; ) {
            final TcpConnection connection = connections.slot(dirty[next++]);
            try {
                work += connection.sender().flushDirty();
            } catch (final Throwable ex) {
                transport.handlerFailed(connection, ex);
            }
        }
        count = 0;
        first = 0;
        next = 0;
        return work;
    }
}
