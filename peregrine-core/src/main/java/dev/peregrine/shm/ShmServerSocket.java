package dev.peregrine.shm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;

/**
 * The blocking, {@code java.net.ServerSocket}-like side of the rendezvous: listens on a Unix domain socket
 * path and {@link #accept()}s clients, each getting a fresh pair of rings. Ring files left by dead processes
 * in the ring folder are removed when it starts.
 *
 * <p>Thread-safe as a {@code ServerSocketChannel} is: one thread accepting, any thread closing.
 */
public final class ShmServerSocket implements AutoCloseable {
    private final UnixDomainSocketAddress address;
    private final ShmOptions options;
    private final ServerSocketChannel server;

    /**
     * Binds and listens.
     *
     * @param address the socket path; a stale socket file nobody listens on is replaced
     * @param options ring sizes and folder, handshake timeout, wait strategy of accepted sockets
     * @throws UncheckedIOException if the path is in use or cannot be bound, naming it
     */
    public ShmServerSocket(final UnixDomainSocketAddress address, final ShmOptions options) {
        this.address = address;
        this.options = options;
        ShmRingFile.cleanLeftovers(options.ringDirectory());
        try {
            this.server = ShmRendezvous.bind(address);
        } catch (final IOException ex) {
            throw ShmRendezvous.unchecked("cannot listen on " + address.getPath(), ex);
        }
    }

    /**
     * Waits for a client and completes the rendezvous with it.
     *
     * @return the connected socket
     * @throws UncheckedIOException if this server is closed or the rendezvous fails, with the reason
     */
    public ShmSocket accept() {
        final SocketChannel socket;
        try {
            socket = server.accept();
        } catch (final IOException ex) {
            throw ShmRendezvous.unchecked("accept on " + address.getPath() + " failed", ex);
        }
        try {
            return ShmSocket.open(ShmRendezvous.serve(socket, options), options);
        } catch (final IOException ex) {
            throw ShmRendezvous.unchecked("rendezvous with a client of " + address.getPath() + " failed", ex);
        }
    }

    /**
     * The path listened on.
     *
     * @return the address
     */
    public UnixDomainSocketAddress address() {
        return address;
    }

    /** Stops listening and removes the socket file; sockets already accepted stay open. */
    @Override
    public void close() {
        try {
            server.close();
            Files.deleteIfExists(address.getPath());
        } catch (final IOException ex) {
            throw ShmRendezvous.unchecked("cannot close " + address.getPath(), ex);
        }
    }
}
