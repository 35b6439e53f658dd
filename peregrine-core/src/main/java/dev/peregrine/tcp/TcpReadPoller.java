package dev.peregrine.tcp;

import dev.peregrine.reactor.Pollable;

import java.util.Arrays;

/**
 * The connected connections of a transport in {@link TcpOptions#readPolling(boolean) read-polling} mode,
 * walked once per duty cycle with a non-blocking read on each: no selector wakeup stands between a
 * segment's arrival and its read. Adding and removing are constant time (a connection remembers its
 * place; the last one moves into a hole); the array grows only when a new high of connections is reached,
 * so a steady state allocates nothing.
 *
 * <pre>
 *  0                         count               length
 *  +-------------------------+-------------------+
 *  | polled connections      | free              |
 *  +-------------------------+-------------------+
 * </pre>
 */
final class TcpReadPoller implements Pollable {
    private TcpConnection[] polled = new TcpConnection[16];
    private int count;

    void add(final TcpConnection connection) {
        if (connection.pollIndex() >= 0) {
            return;
        }
        if (count == polled.length) {
            polled = Arrays.copyOf(polled, count * 2);
        }
        connection.pollIndex(count);
        polled[count++] = connection;
    }

    void remove(final TcpConnection connection) {
        final int index = connection.pollIndex();
        if (index < 0) {
            return;
        }
        final TcpConnection last = polled[--count];
        polled[index] = last;
        last.pollIndex(index);
        polled[count] = null;
        connection.pollIndex(-1);
    }

    int count() {
        return count;
    }

    /**
     * Reads every polled connection once. Walks from the end so that a connection closed during the walk
     * (its place taken by the last one, already read) skips nobody; one accepted during it waits a cycle.
     */
    @Override
    public int doWork(final long nowNs) {
        int work = 0;
        for (int i = count - 1; i >= 0; i--) {
            if (i < count) { // handlers may have closed several connections
                work += polled[i].pollRead();
            }
        }
        return work;
    }
}
