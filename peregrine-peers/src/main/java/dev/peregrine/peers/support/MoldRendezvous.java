package dev.peregrine.peers.support;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * How the clients of {@code bench load}'s shared topology and a MoldUDP64 responder that serves them all find each
 * other's sockets, before any message flows. A MoldUDP64 session is one feed each way with a request server beside
 * each publisher, and each of those four sockets is given its peer's address when it is made; the responder starts
 * before the clients and does not know how many will come. So every client introduces itself on the responder's one
 * rendezvous port ({@code port}) in two round trips, and from then on every socket of that client's sessions talks
 * to one peer only (a socket that hears from one sender gets no new address object per datagram, and nothing has to
 * route packets by session):
 *
 * <ol>
 *   <li>{@link #HELLO} (client → rendezvous): port A = the client's request server. The responder makes that
 *       client's subscriber (asking that request server) and the request server of its echo session.</li>
 *   <li>{@link #WELCOME} (→ the HELLO's source): port A = the responder's feed of that client, port B = the
 *       request server of its echoes. The client makes its subscriber of echoes and its publisher.</li>
 *   <li>{@link #READY} (client → rendezvous): port A = the client's feed of echoes. The responder makes the
 *       publisher of that client's echoes.</li>
 *   <li>{@link #ACK} (→ the READY's source): the client may send.</li>
 * </ol>
 *
 * <p>Every datagram is {@value #LENGTH} bytes, big-endian:
 * <pre>
 *  0               4               8               12              16
 *  +---------------+---------------+---------------+---------------+
 *  |     type      |    client     |    port A     |    port B     |
 *  +---------------+---------------+---------------+---------------+
 * </pre>
 * {@code client} is the client's index in its group; the responder tells clients apart by it and by the source of
 * the datagram, so a repeated HELLO or READY (its answer was lost) is answered again, never served twice. Addresses
 * are those of the datagrams' sources with the ports given. Loopback rarely loses one, but a client asks again
 * every {@value #RETRY_MS} ms until {@value #TIMEOUT_S} s have passed.
 */
public final class MoldRendezvous implements AutoCloseable {
    /** Bytes of every rendezvous datagram. */
    public static final int LENGTH = 16;
    /** Client to responder: here is my request server. */
    public static final int HELLO = 1;
    /** Responder to client: here are your feed and the request server of your echoes. */
    public static final int WELCOME = 2;
    /** Client to responder: here is my feed of echoes. */
    public static final int READY = 3;
    /** Responder to client: your echoes will be published. */
    public static final int ACK = 4;
    /** How long a client waits for an answer before it asks again. */
    static final int RETRY_MS = 100;
    /** How long a client asks before it gives up. */
    static final int TIMEOUT_S = 10;

    private static final int TYPE_OFFSET = 0;
    private static final int CLIENT_OFFSET = 4;
    private static final int PORT_A_OFFSET = 8;
    private static final int PORT_B_OFFSET = 12;

    private final DatagramSocket socket;
    private final InetSocketAddress responder;
    private final byte[] out = new byte[LENGTH];
    private final byte[] in = new byte[LENGTH + 1];

    /**
     * Opens the client side's socket, bound to an ephemeral port of the responder's address.
     *
     * @param responder the responder's rendezvous address
     * @throws IOException if the socket cannot be opened
     */
    public MoldRendezvous(final InetSocketAddress responder) throws IOException {
        this.responder = responder;
        this.socket = new DatagramSocket(new InetSocketAddress(responder.getAddress(), 0));
        socket.setSoTimeout(RETRY_MS);
    }

    /**
     * Writes one rendezvous datagram.
     *
     * @param into where, from its position 0; at least {@value #LENGTH} bytes
     * @param type {@link #HELLO}, {@link #WELCOME}, {@link #READY} or {@link #ACK}
     * @param client the client's index
     * @param portA the first port, or 0
     * @param portB the second port, or 0
     * @return {@code into}, position 0, limit {@value #LENGTH}
     */
    public static ByteBuffer encode(final ByteBuffer into, final int type, final int client, final int portA,
        final int portB) {
        into.clear();
        into.putInt(TYPE_OFFSET, type).putInt(CLIENT_OFFSET, client).putInt(PORT_A_OFFSET, portA)
            .putInt(PORT_B_OFFSET, portB);
        return into.limit(LENGTH);
    }

    /**
     * The type of a received datagram, checked.
     *
     * @param datagram the datagram, position 0
     * @param length its length
     * @return its type, or -1 if it is not a rendezvous datagram (wrong length or unknown type)
     */
    public static int type(final ByteBuffer datagram, final int length) {
        if (length != LENGTH) {
            return -1;
        }
        final int type = datagram.getInt(TYPE_OFFSET);
        return type >= HELLO && type <= ACK ? type : -1;
    }

    /**
     * The client index of a datagram whose {@link #type} was checked.
     *
     * @param datagram the datagram
     * @return the index
     */
    public static int client(final ByteBuffer datagram) {
        return datagram.getInt(CLIENT_OFFSET);
    }

    /**
     * Port A of a datagram whose {@link #type} was checked.
     *
     * @param datagram the datagram
     * @return the port, checked by the caller before use
     */
    public static int portA(final ByteBuffer datagram) {
        return datagram.getInt(PORT_A_OFFSET);
    }

    /**
     * Port B of a datagram whose {@link #type} was checked.
     *
     * @param datagram the datagram
     * @return the port, checked by the caller before use
     */
    public static int portB(final ByteBuffer datagram) {
        return datagram.getInt(PORT_B_OFFSET);
    }

    /**
     * Whether a port from a datagram can be used.
     *
     * @param port the port
     * @return true for 1 to 65535
     */
    public static boolean validPort(final int port) {
        return port > 0 && port <= 0xFFFF;
    }

    /**
     * One round trip from the client side: sends a datagram and waits for the answer of the expected type for the
     * same client, asking again every {@value #RETRY_MS} ms. Runs at connect time only (it allocates).
     *
     * @param type {@link #HELLO} or {@link #READY}
     * @param client the client's index
     * @param port the port the datagram carries (port A)
     * @param answer the type of the awaited answer
     * @return the answer's port A and port B
     * @throws IOException naming the responder if no valid answer comes within {@value #TIMEOUT_S} s
     */
    public int[] ask(final int type, final int client, final int port, final int answer) throws IOException {
        encode(ByteBuffer.wrap(out), type, client, port, 0);
        final DatagramPacket request = new DatagramPacket(out, LENGTH, responder);
        final DatagramPacket reply = new DatagramPacket(in, in.length);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        while (System.nanoTime() - deadline < 0) {
            socket.send(request);
            try {
                while (true) {
                    reply.setLength(in.length);
                    socket.receive(reply);
                    final ByteBuffer received = ByteBuffer.wrap(in);
                    if (type(received, reply.getLength()) == answer && client(received) == client) {
                        return new int[] {portA(received), portB(received)};
                    }
                    // an answer to an earlier, repeated ask, or a stray datagram: keep waiting for ours
                }
            } catch (final SocketTimeoutException ex) {
                // ask again
            }
        }
        throw new IOException("MoldUDP64 responder at " + responder + " did not answer " + name(type) + " of client "
            + client + " within " + TIMEOUT_S + " s (is it running, and does it serve several clients?)");
    }

    private static String name(final int type) {
        return switch (type) {
            case HELLO -> "HELLO";
            case WELCOME -> "WELCOME";
            case READY -> "READY";
            case ACK -> "ACK";
            default -> "type=" + type;
        };
    }

    /** Closes the client side's socket. */
    @Override
    public void close() {
        socket.close();
    }
}
