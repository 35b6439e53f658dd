package dev.peregrine.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The client end of a rendezvous done by hand, blocking, for the tests of a peer that misbehaves: it maps both
 * rings and acknowledges, and then holds them apart from its socket, so that it can drop the one and keep the
 * other (or write records no well-behaved client would).
 *
 * @param socket the rendezvous socket, connected and acknowledged
 * @param clientToServer the ring this client writes
 * @param serverToClient the ring this client reads
 */
record RawRendezvous(SocketChannel socket, MemorySegment clientToServer, MemorySegment serverToClient) {
    /**
     * Connects, reads the server's offer, maps both rings into {@code arena} and acknowledges.
     *
     * @param address the server's rendezvous address
     * @param arena where the rings are mapped
     * @return the connection
     * @throws IOException if the socket fails
     */
    static RawRendezvous connect(final UnixDomainSocketAddress address, final Arena arena) throws IOException {
        final SocketChannel socket = SocketChannel.open(StandardProtocolFamily.UNIX);
        socket.connect(address); // blocking: the offer is read whole or the server closed
        final ByteBuffer offerBuffer = ShmHandshake.newBuffer();
        ShmHandshake.Offer offer;
        while ((offer = ShmHandshake.readOffer(offerBuffer)) == null) {
            assertThat(offerBuffer.hasRemaining()).as("offer fits the buffer").isTrue();
            assertThat(socket.read(offerBuffer)).as("server closed during the rendezvous").isNotNegative();
        }
        final MemorySegment clientToServer = ShmRingFile.map(offer.clientToServer(), offer.capacity(),
            offer.maxMessageLength(), arena);
        final MemorySegment serverToClient = ShmRingFile.map(offer.serverToClient(), offer.capacity(),
            offer.maxMessageLength(), arena);
        socket.write(ByteBuffer.wrap(new byte[] {ShmHandshake.ACK}));
        return new RawRendezvous(socket, clientToServer, serverToClient);
    }
}
