package dev.peregrine.mold;

import dev.peregrine.counters.CountersManager;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.NanoClock;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Shared helpers of the MoldUDP64 tests: a manual clock, capture sockets, packet builders. */
final class MoldFixture {
    static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    /** The one byte of a marker datagram: shorter than any MoldUDP64 packet. */
    private static final byte MARKER = 0x7F;

    private MoldFixture() {
    }

    /** A clock the test moves by hand. */
    static final class ManualClock implements NanoClock {
        long now = 1_000_000_000L;

        @Override
        public long nanoTime() {
            return now;
        }
    }

    /**
     * A listener that writes each delivery ("message N") and each unrecoverable gap ("unrecoverable F+C REASON")
     * into {@code events}, in the order they come.
     */
    static MoldUDP64Listener recording(final List<String> events) {
        return new MoldUDP64Listener() {
            @Override
            public void onMessage(final long sequence, final MemorySegment buffer, final long offset, final int length) {
                events.add("message " + sequence);
            }

            @Override
            public void onUnrecoverable(final long fromSequence, final long count, final MoldUDP64GapReason reason) {
                events.add("unrecoverable " + fromSequence + "+" + count + " " + reason);
            }
        };
    }

    static Reactor reactor(final NanoClock clock) {
        return new Reactor(options(clock));
    }

    /** A reactor whose counters go to the given manager, e.g. a file the test reads. */
    static Reactor reactor(final NanoClock clock, final CountersManager counters) {
        return new Reactor(options(clock).counters(counters));
    }

    private static ReactorOptions options(final NanoClock clock) {
        return new ReactorOptions().idleStrategy(new BusySpinIdleStrategy()).clock(clock)
            .errorHandler(error -> {
                throw new AssertionError("unexpected error reported to the reactor", error);
            });
    }

    static InetSocketAddress loopback(final int port) {
        return new InetSocketAddress(LOOPBACK, port);
    }

    static DatagramChannel capture() {
        try {
            final DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET);
            channel.bind(loopback(0));
            channel.configureBlocking(false);
            return channel;
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    static InetSocketAddress address(final DatagramChannel channel) {
        try {
            return (InetSocketAddress)channel.getLocalAddress();
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Runs reactor cycles until a datagram arrives on {@code channel}, or fails after 5 s. */
    static byte[] receive(final Reactor reactor, final DatagramChannel channel) {
        final ByteBuffer buffer = ByteBuffer.allocate(65536);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        try {
            while (System.nanoTime() < deadline) {
                reactor.doWork();
                if (channel.receive(buffer) != null) {
                    buffer.flip();
                    final byte[] bytes = new byte[buffer.remaining()];
                    buffer.get(bytes);
                    return bytes;
                }
            }
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
        throw new AssertionError("no datagram within 5 s on " + address(channel));
    }

    /**
     * Whether nothing came to {@code channel} from what a thousand reactor cycles did (counted, not timed): proven by
     * a marker, not by a quiet time. After the cycles this thread sends a marker datagram (one byte, shorter than any
     * MoldUDP64 packet) to the channel; on loopback it queues behind whatever this thread's cycles sent, so nothing
     * came if the first datagram read is the marker. The deadline only fails a wait that hung.
     */
    static boolean nothingReceived(final Reactor reactor, final DatagramChannel channel) {
        for (int i = 0; i < 1000; i++) {
            reactor.doWork();
        }
        final ByteBuffer buffer = ByteBuffer.allocate(65536);
        try (DatagramChannel marker = DatagramChannel.open(StandardProtocolFamily.INET)) {
            marker.send(ByteBuffer.wrap(new byte[] {MARKER}), channel.getLocalAddress());
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (channel.receive(buffer) == null) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the marker never came to " + address(channel));
                }
                Thread.onSpinWait();
            }
            buffer.flip();
            return buffer.remaining() == 1 && buffer.get(0) == MARKER;
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    static void spinUntil(final Reactor reactor, final BooleanSupplier condition, final long seconds) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            reactor.doWork();
        }
        if (!condition.getAsBoolean()) {
            throw new AssertionError("condition not met within " + seconds + " s");
        }
    }

    static String hex(final byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    static byte[] unhex(final String hex) {
        return HexFormat.of().parseHex(hex.replace(" ", ""));
    }

    /** Builds a downstream packet. */
    static byte[] packet(final String session, final long sequence, final int count, final byte[]... messages) {
        int length = MoldUDP64Layout.HEADER_LENGTH;
        for (final byte[] message : messages) {
            length += 2 + message.length;
        }
        final ByteBuffer buffer = ByteBuffer.allocate(length).order(ByteOrder.BIG_ENDIAN);
        buffer.put(MoldUDP64Layout.session(session).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        buffer.putLong(sequence);
        buffer.putShort((short)count);
        for (final byte[] message : messages) {
            buffer.putShort((short)message.length);
            buffer.put(message);
        }
        return buffer.array();
    }

    /** Messages whose first 8 bytes (big-endian) are their sequence numbers, starting at {@code first}. */
    static byte[][] numbered(final long first, final int count) {
        final byte[][] messages = new byte[count][];
        for (int i = 0; i < count; i++) {
            messages[i] = ByteBuffer.allocate(8).putLong(first + i).array();
        }
        return messages;
    }

    static MemorySegment segment(final byte[] bytes) {
        return MemorySegment.ofArray(bytes);
    }
}
