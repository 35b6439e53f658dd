package dev.peregrine.tcp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Frames terminated by a byte pattern ({@code \n}, {@code \r\n} or any other); the delivered payload
 * excludes the delimiter, and sending appends it. A payload must not contain the delimiter.
 *
 * <p>The search resumes where the previous read left it, so a frame trickling in one byte at a time is
 * scanned once, not once per byte.
 */
final class DelimiterFrameCodec implements FrameCodec {
    private final byte[] delimiter;
    private final int maxFrameLength;
    private int searchFrom;
    private String failure;

    DelimiterFrameCodec(final byte[] delimiter, final int maxFrameLength) {
        if (delimiter == null || delimiter.length == 0) {
            throw new IllegalArgumentException("delimiter must have at least one byte");
        }
        if (maxFrameLength < 1) {
            throw new IllegalArgumentException("maxFrameLength=" + maxFrameLength);
        }
        this.delimiter = delimiter.clone();
        this.maxFrameLength = maxFrameLength;
    }

    @Override
    public int trailerLength() {
        return delimiter.length;
    }

    @Override
    public int maxFrameLength() {
        return maxFrameLength;
    }

    @Override
    public void writeTrailer(final MemorySegment buffer, final long offset) {
        MemorySegment.copy(delimiter, 0, buffer, ValueLayout.JAVA_BYTE, offset, delimiter.length);
    }

    @Override
    public int decode(final MemorySegment buffer, final long offset, final int length, final FrameSink sink) {
        final int delimiterLength = delimiter.length;
        int frameStart = 0;
        int candidate = searchFrom;
        while (frameStart + candidate + delimiterLength <= length) {
            if (matchesAt(buffer, offset + frameStart + candidate)) {
                if (candidate > maxFrameLength) {
                    failure = FrameCodec.tooLong(candidate, maxFrameLength);
                    return MALFORMED;
                }
                final boolean more = sink.onFrame(buffer, offset + frameStart, candidate);
                frameStart += candidate + delimiterLength;
                candidate = 0;
                if (!more) {
                    searchFrom = 0;
                    return frameStart;
                }
            } else {
                candidate++;
            }
        }
        searchFrom = candidate;
        if (candidate > maxFrameLength) {
            failure = "no delimiter within maxFrameLength=" + maxFrameLength + " bytes (" + (length - frameStart)
                + " bytes buffered); " + FrameCodec.tooLong(candidate, maxFrameLength);
            return MALFORMED;
        }
        return frameStart;
    }

    private boolean matchesAt(final MemorySegment buffer, final long at) {
        for (int i = 0; i < delimiter.length; i++) {
            if (buffer.get(ValueLayout.JAVA_BYTE, at + i) != delimiter[i]) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String failure() {
        return failure;
    }

    @Override
    public void reset() {
        searchFrom = 0;
        failure = null;
    }
}
