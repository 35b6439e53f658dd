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
 * no repeat. Messages appended to the store by someone else on the same reactor (a MoldUDP64 publisher, a
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
    private boolean ended;

    SoupBinTcpSession(final SoupBinTcpServer server, final String name, final MoldUDP64MessageStore store) {
        this.server = server;
        this.name = name;
        this.store = store;
    }

    /**
     * Appends a message to the session and sends it to every client that is caught up; allocates nothing.
     *
     * @param buffer memory holding it
     * @param offset where it starts
     * @param length its length, 0 to {@link SoupBinTcpLayout#MAX_MESSAGE_LENGTH}
     * @return its sequence number
     * @throws IllegalStateException after {@link #end()}
     */
    public long publish(final MemorySegment buffer, final long offset, final int length) {
        if (ended) {
            throw new IllegalStateException("session=" + name + " has ended; publish refused");
        }
        if (length < 0 || length > SoupBinTcpLayout.MAX_MESSAGE_LENGTH) {
            throw new IllegalArgumentException("length=" + length + " must be in [0, "
                + SoupBinTcpLayout.MAX_MESSAGE_LENGTH + "]");
        }
        final long sequence = store.append(buffer, offset, length);
        for (int i = 0; i < clientCount; i++) {
            final SoupServerConnection client = clients[i];
            if (client.nextSequence == sequence && !client.backPressured) {
                server.serve(client, 1, true);
            }
        }
        return sequence;
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
    }

    /** Removes a client; whether it was there. */
    boolean remove(final SoupServerConnection client) {
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
