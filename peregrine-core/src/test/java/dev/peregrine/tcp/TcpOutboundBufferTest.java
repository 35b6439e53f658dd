package dev.peregrine.tcp;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

import static org.assertj.core.api.Assertions.assertThat;

/** The outbound buffer moves its pending bytes to the front only when they are few: an eighth of it at most. */
class TcpOutboundBufferTest {
    /** A socket that takes a set number of bytes per write and keeps them for the test to check. */
    private static final class SlowSocket implements WritableByteChannel {
        final ByteBuffer taken = ByteBuffer.allocate(1 << 16);
        int takesNext;

        @Override
        public int write(final ByteBuffer source) {
            final int n = Math.min(takesNext, source.remaining());
            for (int i = 0; i < n; i++) {
                taken.put(source.get());
            }
            takesNext = 0;
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    @Test
    void shouldCompactOnlyWhenAnEighthOrLessIsPendingAndKeepEveryByteInOrder() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            final TcpOutboundBuffer buffer = new TcpOutboundBuffer(arena, 1024);
            final SlowSocket socket = new SlowSocket();
            int next = 0;
            next = append(buffer, next, 1000);

            socket.takesNext = 100;
            assertThat(buffer.writeTo(socket, false)).isEqualTo(100);
            assertThat(buffer.reserve(100)).as("900 pending, 100 written: moving them would copy 9x what it frees").isFalse();
            assertThat(buffer.tail()).isEqualTo(1000);

            socket.takesNext = 500;
            assertThat(buffer.writeTo(socket, false)).isEqualTo(500);
            assertThat(buffer.reserve(100)).as("400 pending, more than an eighth of 1024").isFalse();

            socket.takesNext = 300;
            assertThat(buffer.writeTo(socket, false)).isEqualTo(300);
            assertThat(buffer.reserve(100)).as("100 pending, 900 written").isTrue();
            assertThat(buffer.tail()).as("the pending bytes moved to the front").isEqualTo(100);
            next = append(buffer, next, 100);

            socket.takesNext = Integer.MAX_VALUE;
            assertThat(buffer.writeTo(socket, false)).isEqualTo(200);
            assertThat(buffer.pending()).isZero();
            final ByteBuffer taken = socket.taken.flip();
            assertThat(taken.remaining()).isEqualTo(next);
            for (int i = 0; i < next; i++) {
                assertThat(taken.get() & 0xFF).as("byte %d", i).isEqualTo(i & 0xFF);
            }
        }
    }

    /** Appends {@code count} bytes numbered on from {@code next}; returns the next number. */
    private static int append(final TcpOutboundBuffer buffer, final int next, final int count) {
        assertThat(buffer.reserve(count)).isTrue();
        for (int i = 0; i < count; i++) {
            buffer.segment().set(ValueLayout.JAVA_BYTE, buffer.tail() + i, (byte)(next + i));
        }
        buffer.advance(count);
        return next + count;
    }
}
