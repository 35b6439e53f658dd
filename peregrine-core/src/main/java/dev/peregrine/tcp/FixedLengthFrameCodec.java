package dev.peregrine.tcp;

import java.lang.foreign.MemorySegment;

/**
 * Every frame is exactly {@code frameLength} bytes, with no header: the cheapest framing when all
 * messages have one size.
 */
final class FixedLengthFrameCodec implements FrameCodec {
    private final int frameLength;

    FixedLengthFrameCodec(final int frameLength) {
        if (frameLength < 1) {
            throw new IllegalArgumentException("frameLength=" + frameLength);
        }
        this.frameLength = frameLength;
    }

    @Override
    public int maxFrameLength() {
        return frameLength;
    }

    @Override
    public int minPayloadLength() {
        return frameLength;
    }

    @Override
    public void checkPayloadLength(final int length) {
        if (length != frameLength) {
            throw new IllegalArgumentException("length=" + length + " but the framing is fixed:" + frameLength);
        }
    }

    @Override
    public int decode(final MemorySegment buffer, final long offset, final int length, final FrameSink sink) {
        int position = 0;
        while (length - position >= frameLength) {
            final boolean more = sink.onFrame(buffer, offset + position, frameLength);
            position += frameLength;
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
