package dev.peregrine.tcp;

import java.lang.foreign.MemorySegment;

/**
 * One framing on a byte stream: how a payload is wrapped on the way out (a header before it, a trailer
 * after it) and how frames are found on the way in.
 *
 * <p>A codec belongs to one connection, because decoders keep a little state between reads (how far a
 * delimiter search got). Decoding never allocates from a length that came off the wire: a length field
 * is checked against {@link #maxFrameLength()} before anything is done with it.
 */
interface FrameCodec {
    /** Returned by {@link #decode} when the stream is malformed; {@link #failure()} says why. */
    int MALFORMED = -1;

    /**
     * Bytes written before each payload.
     *
     * @return the header length; 0 unless the framing has one
     */
    default int headerLength() {
        return 0;
    }

    /**
     * Bytes written after each payload.
     *
     * @return the trailer length; 0 unless the framing has one
     */
    default int trailerLength() {
        return 0;
    }

    /**
     * The longest payload this codec sends or accepts.
     *
     * @return bytes
     */
    int maxFrameLength();

    /**
     * Checks an outbound payload length that is within {@link #maxFrameLength()}; a framing that needs
     * an exact length throws.
     *
     * @param length the payload length
     * @throws IllegalArgumentException if this framing cannot carry a payload of that length
     */
    default void checkPayloadLength(final int length) {
    }

    /**
     * The shortest payload {@link #checkPayloadLength} accepts: 0, or the one length of a fixed framing.
     *
     * @return the length
     */
    default int minPayloadLength() {
        return 0;
    }

    /**
     * Writes the header of a frame.
     *
     * @param buffer where
     * @param offset at which offset; {@link #headerLength()} bytes are written
     * @param payloadLength the length of the payload that follows
     */
    default void writeHeader(final MemorySegment buffer, final long offset, final int payloadLength) {
    }

    /**
     * Writes the trailer of a frame.
     *
     * @param buffer where
     * @param offset at which offset; {@link #trailerLength()} bytes are written
     */
    default void writeTrailer(final MemorySegment buffer, final long offset) {
    }

    /**
     * Delivers every whole frame in {@code buffer[offset, offset + length)} to the sink, in order.
     *
     * @param buffer received bytes
     * @param offset where the first undecoded byte is
     * @param length how many undecoded bytes there are
     * @param sink receives each frame; decoding stops early when it returns false
     * @return the bytes consumed (whole frames delivered), or {@link #MALFORMED}
     */
    int decode(MemorySegment buffer, long offset, int length, FrameSink sink);

    /**
     * Why the last {@link #decode} returned {@link #MALFORMED}.
     *
     * @return the reason, e.g. {@code frame length 4294967295 exceeds maxFrameLength=65536}
     */
    String failure();

    /** Forgets the decoding state, for a new connection. */
    void reset();

    /**
     * The message for a frame over the maximum; the one wording every codec uses.
     *
     * @param length the frame length the peer announced or sent
     * @param maxFrameLength the configured maximum
     * @return the reason
     */
    static String tooLong(final long length, final int maxFrameLength) {
        return "frame length " + length + " exceeds maxFrameLength=" + maxFrameLength;
    }
}
