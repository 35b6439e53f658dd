package dev.peregrine.shm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/**
 * One established duplex: the rendezvous socket (kept open as the liveness signal), the two mapped rings,
 * a reader for the inbound one and a writer for the outbound one. Shared by {@link ShmSocket} and
 * {@link ShmTransport}.
 *
 * <p>The mappings belong to an arena of this connection, closed deterministically once the connection is
 * closed and nobody uses the rings any more. Users mark their use with {@link #enter()} and {@link #exit()}
 * (the socket streams around each call, a transport for the connection's whole life): {@link #close()}, from
 * any thread, only signals while a use is in progress, and the last user to leave finishes the close on its
 * own thread. Finishing marks the outbound ring closed, removes the files, closes the socket (in that order,
 * so a peer that sees the socket's end also sees the orderly close) and unmaps. So the writer's fields are
 * only ever touched by a thread that owns the writer at that moment, and no segment is touched after unmap.
 */
final class ShmConnection {
    private static final int CLOSED = 1 << 30;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(ShmConnection.class, "state", int.class);
        } catch (final ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final Arena arena;
    private final SocketChannel socket;
    private final ShmRingReader reader;
    private final ShmRingWriter writer;
    private final ByteBuffer probe = ByteBuffer.allocateDirect(16);
    private final SocketAddress remoteAddress;
    private Path[] filesToRemove;
    private boolean peerGone;
    @SuppressWarnings("unused") // through STATE: CLOSED bit plus the count of users inside enter/exit
    private volatile int state;
    // an access to the rings faulted (the peer shrank a ring file under the mapping): the close writes nothing to them
    private volatile boolean faulted;

    private ShmConnection(final Arena arena, final SocketChannel socket, final MemorySegment inbound,
        final MemorySegment outbound, final Path[] filesToRemove) {
        this.arena = arena;
        this.socket = socket;
        this.reader = new ShmRingReader(inbound);
        this.writer = new ShmRingWriter(outbound);
        this.filesToRemove = filesToRemove;
        SocketAddress remote;
        try {
            remote = socket.getRemoteAddress();
        } catch (final IOException ex) {
            remote = null;
        }
        this.remoteAddress = remote;
    }

    /**
     * Server side: creates both ring files for a new client and fills {@code offerOut} with the offer. On
     * failure nothing this call made is left behind: the arena is closed and the files it created are removed;
     * a file that was already there under one of the names (a leftover, or a process with the same pid in another
     * pid namespace sharing the folder) is not touched, and the failure names it (the socket is the caller's).
     *
     * @param arena owns the mappings from now on, also on failure: {@link Arena#ofConfined()} for a
     *     connection used by one thread, {@link Arena#ofShared()} otherwise
     */
    static ShmConnection createForClient(final SocketChannel socket, final ShmOptions options, final ByteBuffer offerOut,
        final Arena arena) {
        final long pairId = ShmRingFile.nextPairId();
        final Path clientToServer = ShmRingFile.name(options.ringDirectory(), "c2s", pairId);
        final Path serverToClient = ShmRingFile.name(options.ringDirectory(), "s2c", pairId);
        // ShmRingFile.create removes its own file when it fails, and never one it did not create; here only a ring
        // this call created is removed, since a name that was taken may hold a live ring of someone else
        boolean clientToServerCreated = false;
        boolean serverToClientCreated = false;
        try {
            final MemorySegment inbound = ShmRingFile.create(clientToServer, options.ringCapacity(),
                options.maxMessageLength(), options.maxMessagesInFlight(), options.recordAlignment(), arena);
            clientToServerCreated = true;
            final MemorySegment outbound = ShmRingFile.create(serverToClient, options.ringCapacity(),
                options.maxMessageLength(), options.maxMessagesInFlight(), options.recordAlignment(), arena);
            serverToClientCreated = true;
            ShmHandshake.writeOffer(offerOut, new ShmHandshake.Offer(options.ringCapacity(), options.maxMessageLength(),
                options.maxMessagesInFlight(), clientToServer, serverToClient));
            return new ShmConnection(arena, socket, inbound, outbound, new Path[] {clientToServer, serverToClient});
        } catch (final RuntimeException | Error ex) {
            arena.close();
            if (clientToServerCreated) {
                ShmRingFile.delete(clientToServer);
            }
            if (serverToClientCreated) {
                ShmRingFile.delete(serverToClient);
            }
            throw ex;
        }
    }

    /**
     * Client side: maps and checks the offered ring files; the caller then sends {@link ShmHandshake#ACK}. On
     * failure the arena is closed (the socket is the caller's).
     *
     * @param arena owns the mappings from now on, also on failure; see {@link #createForClient}
     * @throws IllegalStateException if a file is refused
     */
    static ShmConnection mapOffer(final SocketChannel socket, final ShmHandshake.Offer offer, final Arena arena) {
        try {
            final MemorySegment outbound = ShmRingFile.map(offer.clientToServer(), offer.capacity(),
                offer.maxMessageLength(), arena);
            final MemorySegment inbound = ShmRingFile.map(offer.serverToClient(), offer.capacity(),
                offer.maxMessageLength(), arena);
            return new ShmConnection(arena, socket, inbound, outbound, null);
        } catch (final RuntimeException | Error ex) {
            arena.close();
            throw ex;
        }
    }

    /** The client has mapped both rings: the files are no longer needed by name. */
    synchronized void removeFiles() {
        final Path[] files = filesToRemove;
        if (files != null) {
            filesToRemove = null;
            for (final Path file : files) {
                ShmRingFile.delete(file);
            }
        }
    }

    ShmRingReader reader() {
        return reader;
    }

    ShmRingWriter writer() {
        return writer;
    }

    SocketChannel socket() {
        return socket;
    }

    SocketAddress remoteAddress() {
        return remoteAddress;
    }

    /**
     * Begins a use of the rings; every successful call is paired with {@link #exit()}.
     *
     * @return false if the connection is closed (nothing to exit)
     */
    boolean enter() {
        int current;
        do {
            current = (int)STATE.getVolatile(this);
            if ((current & CLOSED) != 0) {
                return false;
            }
        } while (!STATE.compareAndSet(this, current, current + 1));
        return true;
    }

    /**
     * Ends a use begun by {@link #enter()}; the last user to leave a closed connection finishes closing it.
     * The volatile update orders this user's accesses to the rings before the finishing thread's.
     */
    void exit() {
        if ((int)STATE.getAndAdd(this, -1) - 1 == CLOSED) {
            finish();
        }
    }

    /**
     * Checks the liveness socket without blocking (it must be in non-blocking mode).
     *
     * @return true once the peer closed its end or its process died
     */
    synchronized boolean isPeerGone() {
        if (peerGone) {
            return true;
        }
        try {
            probe.clear();
            final int read = socket.read(probe);
            if (read < 0) {
                peerGone = true;
            }
        } catch (final IOException ex) {
            peerGone = true;
        }
        return peerGone;
    }

    /**
     * Whether the peer went, for the blocking streams, which are inside {@link #enter()}: it marked its ring (the
     * inbound one) closed, an orderly close seen with one load of that ring's header; or, if asked, its end of the
     * socket ended ({@link #isPeerGone()}, a system call), which is how a peer that died is seen.
     *
     * @param socketToo whether to look at the socket as well
     * @return true once the peer is gone
     */
    boolean peerWent(final boolean socketToo) {
        return reader.isWriterClosed() || socketToo && isPeerGone();
    }

    /** Marks the peer gone (the reactor saw end of stream on the socket). */
    synchronized void peerGone() {
        peerGone = true;
    }

    /**
     * Whether the peer closed in an orderly way (its ring says so) rather than died.
     *
     * @return true for an orderly close; false also once this side is closed
     */
    boolean peerClosedOrderly() {
        if (!enter()) {
            return false;
        }
        try {
            return reader.isWriterClosed();
        } finally {
            exit();
        }
    }

    /**
     * Closes this side, from any thread: no new use may begin, and once the uses in progress have ended (at
     * once if there are none) the outbound ring is marked closed, the files not yet removed are removed, the
     * socket is closed (the peer sees it at once) and the rings are unmapped. Idempotent.
     *
     * @throws UncheckedIOException if this call finished the close and the socket could not be closed
     */
    void close() {
        if ((int)STATE.getAndBitwiseOr(this, CLOSED) == 0) {
            finish();
        }
    }

    boolean isClosed() {
        return ((int)STATE.getVolatile(this) & CLOSED) != 0;
    }

    /**
     * Marks the rings unusable: an access to them faulted (another process shrank a ring file under the mapping), so
     * the close only unmaps them, without marking the outbound ring closed (that write would fault too).
     */
    void markFaulted() {
        faulted = true;
    }

    private void finish() {
        IOException failure = null;
        try {
            if (!faulted) {
                writer.close();
            }
        } finally {
            removeFiles();
            try {
                socket.close();
            } catch (final IOException ex) {
                failure = ex;
            }
            arena.close();
        }
        if (failure != null) {
            throw new UncheckedIOException("cannot close the rendezvous socket of " + remoteAddress, failure);
        }
    }
}
