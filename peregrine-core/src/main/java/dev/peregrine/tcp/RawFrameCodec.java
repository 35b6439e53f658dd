package dev.peregrine.tcp;

import java.lang.foreign.MemorySegment;

/**
 * No framing: the stream as it arrives, delivered in chunks of at most {@code maxFrameLength} bytes.
 * Message boundaries are whatever each read returned; use it for text protocols and greetings.
 */
final class RawFrameCodec implements FrameCodec {
    private final int maxFrameLength;

    RawFrameCodec(final int maxFrameLength) {
        if (maxFrameLength < 1) {
            throw new IllegalArgumentException("maxFrameLength=" + maxFrameLength);
        }
        this.maxFrameLength = maxFrameLength;
    }

    @Override
    public int maxFrameLength() {
        return maxFrameLength;
    }

    @Override
    public int decode(final MemorySegment buffer, final long offset, final int length, final FrameSink sink) {
        int position = 0;
        while (position < length) {
            final int chunk = Math.min(length - position, maxFrameLength);
            final boolean more = sink.onFrame(buffer, offset + position, chunk);
            position += chunk;
            if (!more) {
                break;
            }
        }
        return position;
    }

    @Override
    public String failure() {
        return null;
    }

    @Override
    public void reset() {
    }
}
