package dev.peregrine.peers.nassau;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchMessageLayout;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.RecoveringStreamReceiver;
import dev.peregrine.peers.RecoveringStreamSender;
import dev.peregrine.peers.RecoveringStreamTransport;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.StreamLoss;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Nassau 1.0.0's MoldUDP64 (paritytrading {@code nassau-core}) as a peer of {@code peregrine-mold}. Ports:
 * the responder's (or the stream receiver's) feed {@code port}, the client's feed {@code port + 1}, the
 * request servers of the client's session (or of the stream) {@code port + 2} and of the responder's
 * session {@code port + 3}. Ping-pong sends each message in a packet of its own; the stream packs packets
 * full and flushes after each batch. Nassau's client keeps no packet past a gap: it drops them and asks the
 * request server for everything from the gap on, one packet per request.
 *
 * <p>{@code bench load}'s shared topology: one thread ({@link NassauSharedResponder}) follows every client's PING
 * session and echoes on a PONG session of its own to each, with that session's request server; the clients, each
 * with sessions of its own on ephemeral ports introduced on {@code port} ({@code MoldRendezvous}), are polled in
 * turn by the one client thread. Nassau's objects are one session each on channels they are handed, so nothing in
 * its API ties a session to a thread.
 */
public final class NassauMoldBenchTransport implements RecoveringStreamTransport {
    static final String PING = "PING";
    static final String PONG = "PONG";
    static final String STREAM = "STREAM";

    /** Creates the adapter (service loader). */
    public NassauMoldBenchTransport() {
    }

    @Override
    public String name() {
        return "nassau-mold";
    }

    @Override
    public String description() {
        return "Nassau 1.0.0 MoldUDP64: MoldUDP64Server + default message store + MoldUDP64RequestServer -> MoldUDP64Client,"
            + " non-blocking DatagramChannels polled by each side's thread; ping-pong echoed on a second session; load, shared"
            + " topology: a session each way per client, one responder thread polling every client's sessions, the clients"
            + " polled in turn by one thread, sockets found by rendezvous";
    }

    @Override
    public String path() {
        return "udp";
    }

    @Override
    public String unavailableReason(final BenchConfig config) {
        final int capacity = NassauPublishing.packetCapacity();
        return config.largest() + 2 > capacity ? (config.size() >= config.replySize() ? "size=" + config.size()
            : "replySize=" + config.replySize()) + " does not fit one Nassau MoldUDP64 packet (" + capacity + " bytes)" : null;
    }

    @Override
    public boolean supportsReplySize() {
        return true;
    }

    static InetSocketAddress address(final BenchConfig config, final int offset) throws IOException {
        return new InetSocketAddress(InetAddress.getByName(config.host()), config.port() + offset);
    }

    static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    /**
     * The bench sequence (first 8 bytes, little-endian) of a message Nassau hands over, without changing the
     * buffer's byte order: the buffer is Nassau's own receive buffer, which it goes on parsing.
     *
     * @param message the message, position to limit
     * @return the sequence, or -1 if the message is shorter than 8 bytes
     */
    static long sequence(final ByteBuffer message) {
        return sequence(message, BenchMessageLayout.LONG_SEQUENCE_LENGTH);
    }

    /**
     * The bench sequence field ({@link BenchMessageLayout}) of a message Nassau hands over, without changing the
     * buffer's byte order.
     *
     * @param message the message, position to limit
     * @param sequenceLength the field's length
     * @return the field, or -1 if the message is shorter than the field
     */
    static long sequence(final ByteBuffer message, final int sequenceLength) {
        if (message.remaining() < sequenceLength) {
            return -1;
        }
        return BenchMessageLayout.sequence(message, message.position(), sequenceLength);
    }

    @Override
    public Responder startResponder(final BenchConfig config) throws Exception {
        return new NassauResponder(config);
    }

    @Override
    public PingClient connect(final BenchConfig config) throws Exception {
        return new NassauPingClient(config);
    }

    @Override
    public boolean sharedResponder() {
        return true; // one thread polls every client's sessions
    }

    @Override
    public Responder startSharedResponder(final BenchConfig config) throws IOException {
        return new NassauSharedResponder(config);
    }

    @Override
    public List<PingClient> connectAll(final BenchConfig config, final int count) throws IOException {
        return NassauPingClient.introduce(config, count);
    }

    @Override
    public RecoveringStreamReceiver startStreamReceiver(final BenchConfig config) throws Exception {
        return new NassauStreamReceiver(config);
    }

    @Override
    public RecoveringStreamSender connectStreamSender(final BenchConfig config, final StreamLoss loss) throws Exception {
        return new NassauStreamSender(config, loss);
    }
}
