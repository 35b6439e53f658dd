package dev.peregrine.tcp;

import java.lang.foreign.MemorySegment;

/**
 * Receives the frames a {@link FrameCodec} finds in a receive buffer, as views into that buffer.
 */
@FunctionalInterface
interface FrameSink {
    /**
     * One whole frame's payload; the view is valid only during this call.
     *
     * @param buffer the receive buffer
     * @param offset where the payload starts
     * @param length payload length in bytes
     * @return whether decoding should go on (false once the connection was closed by the handler)
     */
    boolean onFrame(MemorySegment buffer, long offset, int length);
}
