package dev.peregrine.tcp;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/**
 * A connection's bounded outbound buffer: frames are appended at the tail and written to the socket
 * from the head. Bytes the socket has not taken stay here, in order; when the tail reaches the end, the
 * pending bytes move to the front to make room, but only when they are few: at most an eighth of the
 * buffer, so a move copies at most a seventh of what it frees. A sender that outruns its socket otherwise
 * copied up to half the buffer to win back the other half each time the tail reached the end (a 32 B stream
 * spent more time in that copy than in anything else, the kernel's own copy included); it now waits,
 * back-pressured, until the socket has taken more, which a partial write has already asked the reactor to
 * see to. The kernel's socket buffer keeps the connection busy meanwhile, and when the socket has taken
 * everything the buffer starts again from the front without a copy. While a claim is open (its header written at the tail,
 * the tail not yet advanced) the buffer never moves: a drain does not reset head and tail to the front,
 * so the claim's bytes stay where its owner writes them. The writer says whether one is open with each write
 * ({@link #writeTo}): the claim path stores nothing here but the tail.
 *
 * <pre>
 *  0          head                 tail                 capacity
 *  +----------+--------------------+--------------------+
 *  | written  | pending (in order) | free               |
 *  +----------+--------------------+--------------------+
 * </pre>
 */
final class TcpOutboundBuffer {
    private final MemorySegment segment;
    private final ByteBuffer view;
    private final int capacity;
    private int head;
    private int tail;

    TcpOutboundBuffer(final Arena arena, final int capacity) {
        this.segment = arena.allocate(capacity, 64);
        this.view = segment.asByteBuffer();
        this.capacity = capacity;
    }

    MemorySegment segment() {
        return segment;
    }

    int capacity() {
        return capacity;
    }

    int tail() {
        return tail;
    }

    int pending() {
        return tail - head;
    }

    /**
     * Makes {@code length} contiguous bytes free at the tail, compacting if that is enough and the pending
     * bytes are at most an eighth of the buffer.
     *
     * @return false if the buffer cannot take {@code length} more bytes now
     */
    boolean reserve(final int length) {
        if (capacity - tail >= length) {
            return true;
        }
        final int pending = tail - head;
        if (capacity - pending < length || pending > head || pending > capacity >>> 3) {
            return false;
        }
        MemorySegment.copy(segment, head, segment, 0, pending);
        head = 0;
        tail = pending;
        return true;
    }

    void advance(final int length) {
        tail += length;
    }

    /**
     * Writes as much of the pending bytes as the socket takes.
     *
     * @param claimOpen whether a claim is open behind the tail: then a drain leaves head and tail where they are
     * @return the bytes written
     */
    int writeTo(final WritableByteChannel channel, final boolean claimOpen) throws IOException {
        view.limit(tail).position(head);
        final int written = channel.write(view);
        head += written;
        if (head == tail && !claimOpen) {
            head = 0;
            tail = 0;
        }
        return written;
    }

    void clear() {
        head = 0;
        tail = 0;
    }
}
