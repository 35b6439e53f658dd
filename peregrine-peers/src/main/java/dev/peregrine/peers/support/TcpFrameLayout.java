package dev.peregrine.peers.support;

import dev.peregrine.peers.BenchMessageLayout;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The frame every TCP peer (socket, nio, netty) puts on the wire, so they all move the same bytes:
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 payload length (int32, big-endian)            |
 *  +---------------------------------------------------------------+
 *  |                 sequence number (int64, little-endian)        |
 *  |                 (int32 below 8 bytes: BenchMessageLayout)     |
 *  +---------------------------------------------------------------+
 *  |                 padding up to the message size               ...
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>The length is in network order because that is what {@code DataInputStream.readInt}, a default
 * {@code ByteBuffer} and Netty's {@code LengthFieldBasedFrameDecoder} read without configuration; the
 * payload is the benchmark's message, whose sequence number is little-endian by the SPI's contract.
 */
public final class TcpFrameLayout {
    /** Bytes of the length prefix. */
    public static final int HEADER_LENGTH = 4;
    /** Offset of the sequence number from the start of the frame. */
    public static final int SEQUENCE_OFFSET = HEADER_LENGTH;
    /** The largest payload a peer accepts; a longer length from the wire closes the connection. */
    public static final int MAX_PAYLOAD_LENGTH = 1 << 20;

    private static final VarHandle LONG_LE =
        MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_BE =
        MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

    private TcpFrameLayout() {
    }

    /**
     * Writes the length prefix of a frame into a byte array.
     *
     * @param frame the array
     * @param payloadLength the payload length
     */
    public static void putLength(final byte[] frame, final int payloadLength) {
        INT_BE.set(frame, 0, payloadLength);
    }

    /**
     * Writes a little-endian sequence number.
     *
     * @param bytes the array
     * @param offset where
     * @param sequence the value
     */
    public static void putSequence(final byte[] bytes, final int offset, final long sequence) {
        LONG_LE.set(bytes, offset, sequence);
    }

    /**
     * Reads a little-endian sequence number.
     *
     * @param bytes the array
     * @param offset where
     * @return the value
     */
    public static long sequence(final byte[] bytes, final int offset) {
        return (long) LONG_LE.get(bytes, offset);
    }

    /**
     * Checks a payload length read from the wire.
     *
     * @param payloadLength the length
     * @return the length
     * @throws IllegalStateException if it is out of range (the connection is then closed)
     */
    public static int checkPayloadLength(final int payloadLength) {
        if (payloadLength < BenchMessageLayout.SHORT_SEQUENCE_LENGTH || payloadLength > MAX_PAYLOAD_LENGTH) {
            throw new IllegalStateException("payloadLength=" + payloadLength + " outside ["
                + BenchMessageLayout.SHORT_SEQUENCE_LENGTH + ", " + MAX_PAYLOAD_LENGTH + "]");
        }
        return payloadLength;
    }
}
