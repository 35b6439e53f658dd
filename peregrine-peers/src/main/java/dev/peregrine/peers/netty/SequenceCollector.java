package dev.peregrine.peers.netty;

import dev.peregrine.peers.BenchMessageLayout;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Queues the sequence number of each decoded frame (the decoder has stripped the length) and releases it.
 */
final class SequenceCollector extends ChannelInboundHandlerAdapter {
    private final LongRing received;
    /** The length every frame must have, or -1 for any. */
    private final int expectedLength;
    /** Bytes of each frame's sequence field ({@link BenchMessageLayout}). */
    private final int sequenceLength;
    private IllegalStateException failure;

    SequenceCollector(final LongRing received) {
        this(received, -1, BenchMessageLayout.LONG_SEQUENCE_LENGTH);
    }

    SequenceCollector(final LongRing received, final int expectedLength, final int sequenceLength) {
        this.received = received;
        this.expectedLength = expectedLength;
        this.sequenceLength = sequenceLength;
    }

    /**
     * A frame's sequence field, little-endian by the SPI's contract, read where it starts.
     *
     * @param frame the frame
     * @param index where the field starts
     * @param sequenceLength the field's length
     * @return the field; a 32-bit one unsigned, so never negative
     */
    static long sequence(final ByteBuf frame, final int index, final int sequenceLength) {
        return sequenceLength == BenchMessageLayout.LONG_SEQUENCE_LENGTH ? frame.getLongLE(index)
            : frame.getUnsignedIntLE(index);
    }

    /**
     * Writes a sequence field, little-endian, at the frame's writer index.
     *
     * @param frame the frame
     * @param sequenceLength the field's length
     * @param sequence the sequence number
     * @return the frame
     */
    static ByteBuf writeSequence(final ByteBuf frame, final int sequenceLength, final long sequence) {
        return sequenceLength == BenchMessageLayout.LONG_SEQUENCE_LENGTH ? frame.writeLongLE(sequence)
            : frame.writeIntLE((int) sequence);
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
        final ByteBuf frame = (ByteBuf) msg;
        try {
            final long sequence = sequence(frame, frame.readerIndex(), sequenceLength);
            if (expectedLength >= 0 && frame.readableBytes() != expectedLength) {
                if (failure == null) {
                    failure = new IllegalStateException("reply of length=" + frame.readableBytes() + " to sequence="
                        + sequence + ", expected replySize=" + expectedLength);
                }
                return;
            }
            received.add(sequence);
        } finally {
            frame.release();
        }
    }

    /**
     * Throws the first frame of the wrong length, if one came.
     *
     * @throws IllegalStateException naming its length and sequence
     */
    void checkLengths() {
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
        // a bad frame or a reset ends this connection only
        ctx.close();
    }
}
