package dev.peregrine.shm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/**
 * One established duplex: the rendezvous socket (kept open as the liveness signal), the two mapped rings,
 * a reader for the inbound one and a writer for the outbound one. Shared by {@link ShmSocket} and
 * {@link ShmTransport}.
 *
 * <p>The mappings belong to an automatic arena: they are released when the connection is unreachable, never
 * while a thread (a reader asleep on the futex, say) may still touch them, so closing cannot crash a reader.
 */
final class ShmConnection {
    private final SocketChannel socket;
    private final ShmRingReader reader;
    private final ShmRingWriter writer;
    private final ByteBuffer probe = ByteBuffer.allocateDirect(16);
    private final SocketAddress remoteAddress;
    private Path[] filesToRemove;
    private boolean peerGone;
    private boolean closed;

    private ShmConnection(final SocketChannel socket, final MemorySegment inbound,
        final MemorySegment outbound, final Path[] filesToRemove) {
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
     * Server side: creates both ring files for a new client and fills {@code offerOut} with the offer.
     */
    static ShmConnection createForClient(final SocketChannel socket, final ShmOptions options, final ByteBuffer offerOut) {
        final long pairId = ShmRingFile.nextPairId();
        final Path clientToServer = ShmRingFile.name(options.ringDirectory(), "c2s", pairId);
        final Path serverToClient = ShmRingFile.name(options.ringDirectory(), "s2c", pairId);
        final Arena arena = Arena.ofAuto();
        try {
            final MemorySegment inbound = ShmRingFile.create(clientToServer, options.ringCapacity(),
                options.maxMessageLength(), options.maxMessagesInFlight(), options.recordAlignment(), arena);
            final MemorySegment outbound = ShmRingFile.create(serverToClient, options.ringCapacity(),
                options.maxMessageLength(), options.maxMessagesInFlight(), options.recordAlignment(), arena);
            ShmHandshake.writeOffer(offerOut, new ShmHandshake.Offer(options.ringCapacity(), options.maxMessageLength(),
                options.maxMessagesInFlight(), clientToServer, serverToClient));
            return new ShmConnection(socket, inbound, outbound, new Path[] {clientToServer, serverToClient});
        } catch (final RuntimeException ex) {
            ShmRingFile.delete(clientToServer);
            ShmRingFile.delete(serverToClient);
            throw ex;
        }
    }

    /**
     * Client side: maps and checks the offered ring files; the caller then sends {@link ShmHandshake#ACK}.
     *
     * @throws IllegalStateException if a file is refused
     */
    static ShmConnection mapOffer(final SocketChannel socket, final ShmHandshake.Offer offer) {
        final Arena arena = Arena.ofAuto();
        final MemorySegment outbound = ShmRingFile.map(offer.clientToServer(), offer.capacity(),
            offer.maxMessageLength(), arena);
        final MemorySegment inbound = ShmRingFile.map(offer.serverToClient(), offer.capacity(),
            offer.maxMessageLength(), arena);
        return new ShmConnection(socket, inbound, outbound, null);
    }

    /** The client has mapped both rings: the files are no longer needed by name. */
    void removeFiles() {
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

    /** Marks the peer gone (the reactor saw end of stream on the socket). */
    void peerGone() {
        peerGone = true;
    }

    /**
     * Whether the peer closed in an orderly way (its ring says so) rather than died.
     *
     * @return true for an orderly close
     */
    boolean peerClosedOrderly() {
        return reader.isWriterClosed();
    }

    /**
     * Closes this side: marks the outbound ring closed, closes the socket (the peer sees it at once) and removes
     * files not yet removed. The rings stay mapped until this connection is unreachable (see the class
     * comment). Idempotent.
     */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        writer.close();
        removeFiles();
        try {
            socket.close();
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot close the rendezvous socket of " + remoteAddress, ex);
        }
    }

    boolean isClosed() {
        return closed;
    }
}
