package dev.peregrine.shm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * The blocking halves of the rendezvous ({@link ShmHandshake}), with a deadline, for {@link ShmServerSocket}
 * and {@link ShmSocket}; and binding a listening socket over a stale socket file.
 */
final class ShmRendezvous {
    private ShmRendezvous() {
    }

    /**
     * Binds a listening Unix domain socket; a socket file nobody listens on any more (a crashed server's) is
     * replaced, a live one is not.
     */
    static ServerSocketChannel bind(final UnixDomainSocketAddress address) throws IOException {
        final Path path = address.getPath();
        if (Files.exists(path)) {
            try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                probe.connect(address);
                throw new IOException("address in use: a server is listening on " + path);
            } catch (final ConnectException ex) {
                Files.deleteIfExists(path); // nobody listens: left over by a dead process
            }
        }
        final ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            server.bind(address);
        } catch (final IOException ex) {
            server.close();
            throw ex;
        }
        return server;
    }

    /**
     * Server side on an accepted socket: offers fresh rings, waits for the client's ACK, removes the files. On
     * failure everything is released: the socket, the mappings and the files.
     */
    static ShmConnection serve(final SocketChannel socket, final ShmOptions options) throws IOException {
        ShmConnection connection = null;
        try {
            socket.configureBlocking(false);
            final long deadline = System.nanoTime() + options.handshakeTimeoutNs();
            final ByteBuffer buffer = ShmHandshake.newBuffer();
            connection = ShmConnection.createForClient(socket, options, buffer, Arena.ofShared());
            while (buffer.hasRemaining()) {
                if (socket.write(buffer) == 0) {
                    pause(deadline, "offer not taken by the client");
                }
            }
            final ByteBuffer ack = ByteBuffer.allocate(1);
            while (ack.hasRemaining()) {
                final int read = socket.read(ack);
                if (read < 0) {
                    throw new IOException("client closed the socket during the rendezvous");
                }
                if (read == 0) {
                    pause(deadline, "no acknowledgement from the client");
                }
            }
            if (ack.get(0) != ShmHandshake.ACK) {
                throw new IOException("client sent byte=" + ack.get(0) + " instead of the acknowledgement");
            }
            connection.removeFiles();
            return connection;
        } catch (final IOException | RuntimeException | Error ex) {
            release(socket, connection, ex);
            throw ex;
        }
    }

    /**
     * Client side: connects, maps and checks the offered rings, acknowledges. On failure everything is
     * released: the socket and the mappings.
     */
    static ShmConnection connect(final UnixDomainSocketAddress address, final ShmOptions options) throws IOException {
        final SocketChannel socket = SocketChannel.open(StandardProtocolFamily.UNIX);
        ShmConnection connection = null;
        try {
            socket.connect(address);
            socket.configureBlocking(false);
            final long deadline = System.nanoTime() + options.handshakeTimeoutNs();
            final ByteBuffer buffer = ShmHandshake.newBuffer();
            ShmHandshake.Offer offer;
            while ((offer = ShmHandshake.readOffer(buffer)) == null) {
                if (!buffer.hasRemaining()) {
                    throw new IOException("offer longer than " + buffer.capacity() + " bytes");
                }
                final int read = socket.read(buffer);
                if (read < 0) {
                    throw new IOException("server closed the socket during the rendezvous");
                }
                if (read == 0) {
                    pause(deadline, "no offer from the server");
                }
            }
            connection = ShmConnection.mapOffer(socket, offer, Arena.ofShared());
            final ByteBuffer ack = ByteBuffer.wrap(new byte[] {ShmHandshake.ACK});
            while (ack.hasRemaining()) {
                if (socket.write(ack) == 0) {
                    pause(deadline, "acknowledgement not taken by the server");
                }
            }
            return connection;
        } catch (final IOException | RuntimeException | Error ex) {
            release(socket, connection, ex);
            if (ex instanceof IOException io) {
                throw new IOException("shared-memory connect to " + address.getPath() + " failed: " + io.getMessage(), io);
            }
            throw ex;
        }
    }

    /** Releases what a failed rendezvous opened: the connection (socket, mappings, files), or only the socket. */
    static void release(final SocketChannel socket, final ShmConnection connection, final Throwable failure) {
        try {
            if (connection != null) {
                connection.close();
            }
        } catch (final RuntimeException ex) {
            failure.addSuppressed(ex);
        } finally {
            try {
                socket.close();
            } catch (final IOException ex) {
                failure.addSuppressed(ex);
            }
        }
    }

    private static void pause(final long deadline, final String what) throws IOException {
        if (System.nanoTime() - deadline > 0) {
            throw new IOException("rendezvous timed out: " + what);
        }
        LockSupport.parkNanos(20_000);
    }

    static UncheckedIOException unchecked(final String what, final IOException ex) {
        return new UncheckedIOException(what + ": " + ex.getMessage(), ex);
    }
}
