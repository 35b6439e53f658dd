package dev.peregrine.soup;

import dev.peregrine.mold.MoldUDP64MessageStore;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * One SoupBinTCP session of a {@link SoupBinTcpServer}: a named stream of sequenced messages kept in a
 * {@link MoldUDP64MessageStore}, served to every client logged into it. Made by
 * {@link SoupBinTcpServer#addSession}.
 *
 * <p>{@link #publish} appends a message to the store and writes it at once to every client that is caught up;
 * a client still replaying gets it from the store in turn, so the seam between replay and live has no gap and
 * no repeat. A publisher with many messages at hand {@link #append appends} them and then {@link #flush flushes}
 * once: each caught-up client gets the run with one claim of its outbound buffer; one with many messages of one
 * length {@link #claim claims} room for them in the store, writes them in place and {@link #commit commits}. Messages
 * appended to the store by someone else on the same reactor (a MoldUDP64 publisher, a
 * gateway) are served the same way, on the server's next duty cycle.
 *
 * <p>Not thread-safe: call on the server's reactor thread only.
 */
public final class SoupBinTcpSession {
    private final SoupBinTcpServer server;
    private final String name;
    private final MoldUDP64MessageStore store;
    private SoupServerConnection[] clients = new SoupServerConnection[4];
    private int clientCount;
    /** The clients not replaying: the only ones a publish can serve (a replaying one is behind, by definition). */
    private SoupServerConnection[] live = new SoupServerConnection[4];
    private int liveCount;
    /** Clients a flush looked at, for a test that a publish touches the caught-up clients only. */
    private long flushVisits;
    private boolean ended;
    /** The first message appended since the last flush, or 0 if none. */
    private long firstUnflushed;

    SoupBinTcpSession(final SoupBinTcpServer server, final String name, final MoldUDP64MessageStore store) {
        this.server = server;
        this.name = name;
        this.store = store;
    }

    /**
     * Appends a message to the session and sends it to every client that is caught up, with whatever was
     * {@link #append appended} before it; allocates nothing.
     *
     * @param buffer memory holding it
     * @param offset where it starts
     * @param length its length, 0 to {@link SoupBinTcpLayout#MAX_MESSAGE_LENGTH}
     * @return its sequence number
     * @throws IllegalStateException after {@link #end()}
     */
    public long publish(final MemorySegment buffer, final long offset, final int length) {
        final long sequence = append(buffer, offset, length);
        flush();
        return sequence;
    }

    /**
     * Appends a message to the session without sending it yet: the clients that are caught up get it, with every
     * message appended since the last flush, at the next {@link #flush()} or {@link #publish}, or on the server's
     * next duty cycle. For a publisher with many messages at hand: a run of them goes to each client as one
     * claim of its outbound buffer, not one per message. Allocates nothing.
     *
     * @param buffer memory holding it
     * @param offset where it starts
     * @param length its length, 0 to {@link SoupBinTcpLayout#MAX_MESSAGE_LENGTH}
     * @return its sequence number
     * @throws IllegalStateException after {@link #end()}
     */
    public long append(final MemorySegment buffer, final long offset, final int length) {
        if (ended) {
            throw new IllegalStateException("session=" + name + " has ended; publish refused");
        }
        if (length < 0 || length > SoupBinTcpLayout.MAX_MESSAGE_LENGTH) {
            throw new IllegalArgumentException("length=" + length + " must be in [0, "
                + SoupBinTcpLayout.MAX_MESSAGE_LENGTH + "]");
        }
        final long sequence = store.append(buffer, offset, length);
        if (firstUnflushed == 0) {
            firstUnflushed = sequence;
        }
        return sequence;
    }

    /**
     * Claims room in the store for a run of up to {@code count} messages of {@code length} bytes each, for the caller
     * to write them in place, as {@link MoldUDP64MessageStore#claim} says: message {@code i} (from 0) goes at the
     * returned offset plus {@code i * (length + 3)} of {@link #claimBuffer()}; {@link #claimCount()} tells how many
     * were claimed (the run may be cut short at the store's end). {@link #commit()} then appends them all as
     * {@link #append} would, each numbered in order; the bookkeeping is paid once per run, not per message. No other
     * append to the store until the commit or {@link #abortClaim()}. Allocates nothing.
     *
     * @param length every message's length, 0 to {@link SoupBinTcpLayout#MAX_MESSAGE_LENGTH}
     * @param count most messages, at least 1
     * @return the offset in {@link #claimBuffer()} where the first message goes
     * @throws IllegalStateException after {@link #end()}, or if a claim is open
     * @throws IllegalArgumentException if {@code length} or {@code count} is out of range
     */
    public long claim(final int length, final int count) {
        if (ended) {
            throw new IllegalStateException("session=" + name + " has ended; claim refused");
        }
        return store.claim(length, count);
    }

    /**
     * The memory of the open {@link #claim}.
     *
     * @return the store's ring, where the claimed messages go
     */
    public MemorySegment claimBuffer() {
        return store.claimBuffer();
    }

    /**
     * The messages of the open {@link #claim}.
     *
     * @return the count, 0 if none is open
     */
    public int claimCount() {
        return store.claimCount();
    }

    /**
     * Appends the messages of the open {@link #claim}: the caught-up clients get them at the next {@link #flush()} or
     * {@link #publish}, or on the server's next duty cycle, as after {@link #append}.
     *
     * @return the first one's sequence number
     * @throws IllegalStateException if no claim is open
     */
    public long commit() {
        final long sequence = store.commitClaim();
        if (firstUnflushed == 0) {
            firstUnflushed = sequence;
        }
        return sequence;
    }

    /** Gives up the open {@link #claim}, if any: nothing of it is appended. */
    public void abortClaim() {
        store.abortClaim();
    }

    /**
     * Sends what was {@link #append appended} since the last flush to every client that was caught up when it was
     * appended, as far as each client's outbound buffer takes it (the rest follows from the store as its socket
     * drains). A client still replaying is served by the server's duty cycle, as before. Allocates nothing.
     *
     * @return the messages sent, all clients together
     */
    public int flush() {
        final long from = firstUnflushed;
        if (from == 0) {
            return 0;
        }
        firstUnflushed = 0;
        int sent = 0;
        // the clients not replaying only: with 100 replaying and one caught up, a publish looks at one client. A
        // serve does not change the list (only the server's duty cycle and logins mark a client replaying or not),
        // but a close inside it may shrink the list: the index is checked against the count each time round
        for (int i = 0; i < liveCount; i++) {
            final SoupServerConnection client = live[i];
            flushVisits++;
            if (client.nextSequence >= from && !client.backPressured) {
                sent += server.serve(client, Integer.MAX_VALUE, true);
            }
        }
        return sent;
    }

    /**
     * Ends the session: every client gets End of Session after the last message, at once if it is caught up,
     * else when its replay reaches the end. Later logins are still accepted, replayed, and told the same.
     * Ending an ended session does nothing.
     */
    public void end() {
        if (ended) {
            return;
        }
        ended = true;
        for (int i = 0; i < clientCount; i++) {
            final SoupServerConnection client = clients[i];
            if (!client.backPressured) {
                server.serve(client, 1, false);
            }
        }
    }

    /**
     * Whether {@link #end()} was called.
     *
     * @return true once ended
     */
    public boolean isEnded() {
        return ended;
    }

    /**
     * The session's name, as Login Accepted carries it.
     *
     * @return at most 10 letters and digits
     */
    public String name() {
        return name;
    }

    /**
     * The store the session is served from.
     *
     * @return the store
     */
    public MoldUDP64MessageStore store() {
        return store;
    }

    /**
     * Clients logged into the session now.
     *
     * @return the count
     */
    public int clientCount() {
        return clientCount;
    }

    SoupBinTcpServer server() {
        return server;
    }

    void add(final SoupServerConnection client) {
        if (clientCount == clients.length) {
            clients = Arrays.copyOf(clients, clientCount * 2); // at login, not on the hot path
        }
        clients[clientCount++] = client;
        replayingChanged(client);
    }

    /** Lists a client among those a publish serves, or unlists it, as it is replaying or not now. */
    void replayingChanged(final SoupServerConnection client) {
        if (client.replaying() || client.state != SoupServerConnection.LOGGED_IN || client.session != this) {
            unlistLive(client);
        } else if (client.liveIndex < 0) {
            if (liveCount == live.length) {
                live = Arrays.copyOf(live, liveCount * 2); // a new high of live clients, not per message
            }
            client.liveIndex = liveCount;
            live[liveCount++] = client;
        }
    }

    private void unlistLive(final SoupServerConnection client) {
        final int at = client.liveIndex;
        if (at < 0) {
            return;
        }
        final SoupServerConnection last = live[--liveCount];
        live[at] = last;
        last.liveIndex = at;
        live[liveCount] = null;
        client.liveIndex = -1;
    }

    /** Clients a flush (a publish) has looked at so far: the caught-up ones, not the replaying ones. */
    long flushVisits() {
        return flushVisits;
    }

    /**
     * Clients of the session that are caught up now: those a {@link #publish} writes to at once. The others are
     * replaying from the store, served by the server's duty cycle until they catch up.
     *
     * @return the count, at most {@link #clientCount()}
     */
    public int liveClientCount() {
        return liveCount;
    }

    /** Removes a client; whether it was there. */
    boolean remove(final SoupServerConnection client) {
        unlistLive(client);
        for (int i = 0; i < clientCount; i++) {
            if (clients[i] == client) {
                clients[i] = clients[--clientCount];
                clients[clientCount] = null;
                return true;
            }
        }
        return false;
    }

    SoupServerConnection client(final int index) {
        return clients[index];
    }

    @Override
    public String toString() {
        return "SoupBinTcpSession[" + name + ", next=" + store.nextSequence() + (ended ? ", ended" : "") + "]";
    }
}
