package dev.peregrine.soup;

import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.NanoClock;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/** Shared pieces of the SoupBinTCP tests: a manual clock, a reactor, and a hand-written raw client (the oracle). */
final class SoupFixture {
    private SoupFixture() {
    }

    /** A clock the test moves. */
    static final class ManualClock implements NanoClock {
        volatile long now = 1_000_000_000L;

        @Override
        public long nanoTime() {
            return now;
        }

        void advanceMillis(final long millis) {
            now += millis * 1_000_000L;
        }
    }

    static Reactor reactor(final NanoClock clock) {
        return new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy()).clock(clock)
            .errorHandler(error -> { }));
    }

    /** Runs duty cycles until the condition holds; fails after 10 s (a hung wait, never a result). */
    static void pump(final Reactor reactor, final BooleanSupplier condition) {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            reactor.doWork();
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 10 s");
            }
        }
    }

    static SocketAddress listen(final Reactor reactor, final SoupBinTcpServer server) {
        server.listen(new InetSocketAddress("127.0.0.1", 0));
        pump(reactor, () -> server.localAddress() != null);
        return server.localAddress();
    }

    /** A Login Request written by hand, as the spec lays it out: no code under test involved. */
    static byte[] login(final String username, final String password, final String session, final String sequence) {
        return packet('L', String.format("%-6s%-10s%10s%20s", username, password, session, sequence));
    }

    static byte[] packet(final char type, final String payload) {
        final byte[] body = payload.getBytes(StandardCharsets.ISO_8859_1);
        final byte[] packet = new byte[3 + body.length];
        packet[0] = (byte)((body.length + 1) >> 8);
        packet[1] = (byte)(body.length + 1);
        packet[2] = (byte)type;
        System.arraycopy(body, 0, packet, 3, body.length);
        return packet;
    }

    /**
     * A raw client over a non-blocking socket: writes bytes as given, and decodes what it reads into events
     * ("A SESSION 3", "S 3 payload", "H", "Z", "J S", "closed").
     */
    static final class RawClient implements AutoCloseable {
        final SocketChannel channel;
        final List<String> events = new ArrayList<>();
        /** Every packet in the order the two sides wrote them, as far as this client can tell: 'C' sent, 'S' read. */
        final List<Map.Entry<Character, byte[]>> packets = new ArrayList<>();
        private final ByteBuffer in = ByteBuffer.allocate(1 << 20);
        private long nextSequence;
        boolean closed;

        RawClient(final SocketAddress address) {
            this(address, 0);
        }

        /** With a small kernel receive buffer, for a slow reader: 0 leaves the system's choice. */
        RawClient(final SocketAddress address, final int receiveBuffer) {
            try {
                channel = SocketChannel.open();
                if (receiveBuffer > 0) {
                    channel.setOption(java.net.StandardSocketOptions.SO_RCVBUF, receiveBuffer);
                }
                channel.connect(address);
                channel.configureBlocking(false);
            } catch (final IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }

        void send(final byte[] bytes) {
            for (int at = 0; at + 2 <= bytes.length; ) { // whole packets only: what a test sends is made of them
                final int end = Math.min(bytes.length, at + 2 + ((bytes[at] & 0xFF) << 8 | bytes[at + 1] & 0xFF));
                packets.add(Map.entry('C', Arrays.copyOfRange(bytes, at, end)));
                at = end;
            }
            try {
                final ByteBuffer out = ByteBuffer.wrap(bytes);
                while (out.hasRemaining()) {
                    channel.write(out);
                }
            } catch (final IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }

        /** Reads what has arrived; returns the events decoded so far. */
        List<String> poll() {
            if (closed) {
                return events;
            }
            try {
                final int n = channel.read(in);
                if (n < 0) {
                    closed = true;
                    events.add("closed");
                }
            } catch (final IOException ex) {
                closed = true;
                events.add("closed");
            }
            in.flip();
            while (in.remaining() >= 2) {
                final int length = in.getShort(in.position()) & 0xFFFF;
                if (in.remaining() < 2 + length) {
                    break;
                }
                packets.add(Map.entry('S', Arrays.copyOfRange(in.array(), in.position(), in.position() + 2 + length)));
                in.getShort();
                final byte[] body = new byte[length];
                in.get(body);
                events.add(decode(body));
            }
            in.compact();
            return events;
        }

        private String decode(final byte[] body) {
            if (body.length == 0) {
                return "empty";
            }
            final String payload = new String(body, 1, body.length - 1, StandardCharsets.ISO_8859_1);
            return switch ((char)body[0]) {
                case 'A' -> {
                    nextSequence = Long.parseLong(payload.substring(10).trim());
                    yield "A " + payload.substring(0, 10).trim() + " " + nextSequence;
                }
                case 'S' -> "S " + nextSequence++ + " " + payload;
                case 'J' -> "J " + payload;
                default -> String.valueOf((char)body[0]) + (payload.isEmpty() ? "" : " " + payload);
            };
        }

        long count(final String prefix) {
            return events.stream().filter(e -> e.startsWith(prefix)).count();
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
