package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.SendResult;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many megabytes of frames of mixed sizes through batched sends, half with {@code send} and half with
 * {@code tryClaim}/{@code commit}, under several framings: the receiving end checks the length and every
 * byte of every frame against a generator of its own, so a frame lost, repeated, cut, reordered or
 * overwritten in an outbound buffer (a compaction, a reset, a partial write) cannot go unseen.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TcpByteExactStreamTest {
    /** The same sequence of lengths and payload bytes on both ends; the oracle, independent of the codecs. */
    private static final class Stream {
        private final int fixed;
        private final int maxLength;
        private final boolean text;
        private long random = 0x2545F4914F6CDD1DL;
        private long position;

        Stream(final int fixed, final int maxLength, final boolean text) {
            this.fixed = fixed;
            this.maxLength = maxLength;
            this.text = text;
        }

        int nextLength() {
            if (fixed > 0) {
                return fixed;
            }
            random = random * 6364136223846793005L + 1442695040888963407L;
            final int pick = (int)((random >>> 33) % 100);
            final int bound = pick < 85 ? 64 : pick < 98 ? 2048 : maxLength + 1;
            return (int)((random >>> 17) % bound);
        }

        /** The next payload byte of the stream: letters only for a text framing, any byte value otherwise. */
        byte nextByte() {
            final long k = position++;
            return text ? (byte)('a' + (k * 31 + (k >>> 9)) % 26) : (byte)(k * 131 + (k >>> 11));
        }
    }

    /** Checks every frame of the accepted side; counts the client's sends. */
    private static final class Checker implements ChannelHandler {
        final Stream expected;
        final List<String> failures = new ArrayList<>();
        long serverSide = -1;
        long clientSide = -1;
        long frames;
        long bytes;

        Checker(final Stream expected) {
            this.expected = expected;
        }

        @Override
        public void onAccepted(final long serverId, final long channelId, final SocketAddress remoteAddress) {
            serverSide = channelId;
        }

        @Override
        public void onConnected(final long channelId, final SocketAddress remoteAddress) {
            clientSide = channelId;
        }

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            final int expectedLength = expected.nextLength();
            if (length != expectedLength) {
                fail("frame " + frames + ": length " + length + ", expected " + expectedLength);
                return;
            }
            for (int i = 0; i < length; i++) {
                final byte want = expected.nextByte();
                final byte got = buffer.get(ValueLayout.JAVA_BYTE, offset + i);
                if (got != want) {
                    fail("frame " + frames + " byte " + i + " of " + length + ": " + got + ", expected " + want);
                    return;
                }
            }
            frames++;
            bytes += length;
        }

        @Override
        public void onClosed(final long channelId, final CloseReason reason, final String detail) {
            fail("channel " + channelId + " closed: " + reason + " " + detail);
        }

        private void fail(final String failure) {
            if (failures.size() < 10) {
                failures.add(failure);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1} MB")
    @CsvSource({"length:4be, 64", "length:2le+self, 16", "line, 16", "fixed:100, 8"})
    void shouldDeliverEveryByteOfAManyMegabyteStreamInOrder(final String spec, final int megabytes) {
        final Framing framing = Framing.parse(spec);
        final boolean text = spec.equals("line");
        final int fixed = spec.startsWith("fixed:") ? Integer.parseInt(spec.substring(6)) : 0;
        final int maxLength = 16 * 1024;
        final List<Throwable> errors = new ArrayList<>();
        final Checker checker = new Checker(new Stream(fixed, maxLength, text));
        final Stream sent = new Stream(fixed, maxLength, text);
        try (Reactor reactor = new Reactor(new ReactorOptions().errorHandler(errors::add))) {
            final TcpTransport transport = new TcpTransport(reactor, new TcpOptions().framing(framing).maxFrameLength(maxLength)
                .outboundBufferSize(64 * 1024).receiveBufferSize(64 * 1024), checker);
            final long serverId = transport.listen(TcpTestRig.ANY_LOOPBACK_PORT);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(100);
            while (transport.localAddress(serverId) == null) {
                reactor.doWork();
            }
            transport.connect(transport.localAddress(serverId));
            while (checker.clientSide < 0 || checker.serverSide < 0) {
                reactor.doWork();
                assertThat(System.nanoTime()).isLessThan(deadline);
            }
            final long client = checker.clientSide;
            final MemorySegment scratch = Arena.ofAuto().allocate(maxLength + 1);
            final long total = megabytes * 1024L * 1024L;
            long sentBytes = 0;
            long sentFrames = 0;
            int length = sent.nextLength();
            while (sentBytes < total && checker.failures.isEmpty()) {
                final long result;
                if ((sentFrames & 1) == 0) {
                    result = transport.tryClaim(client, length);
                    if (result >= 0) {
                        final MemorySegment claim = transport.claimBuffer();
                        for (int i = 0; i < length; i++) {
                            claim.set(ValueLayout.JAVA_BYTE, result + i, sent.nextByte());
                        }
                        assertThat(transport.commit()).isNotNegative();
                    }
                } else {
                    final long mark = sent.position;
                    for (int i = 0; i < length; i++) {
                        scratch.set(ValueLayout.JAVA_BYTE, i, sent.nextByte());
                    }
                    result = transport.send(client, scratch, 0, length);
                    if (result < 0) {
                        sent.position = mark; // refused whole: the same bytes go again
                    }
                }
                if (result == SendResult.BACK_PRESSURED) {
                    reactor.doWork(); // the only cycles the sender runs: batching does the rest
                    assertThat(System.nanoTime()).as("stream not through in time").isLessThan(deadline);
                    continue;
                }
                assertThat(result).isNotNegative();
                sentBytes += length;
                sentFrames++;
                length = sent.nextLength();
            }
            final long frames = sentFrames;
            while (checker.frames < frames && checker.failures.isEmpty()) {
                reactor.doWork();
                assertThat(System.nanoTime()).as("stream not through in time").isLessThan(deadline);
            }

            assertThat(checker.failures).isEmpty();
            assertThat(checker.frames).isEqualTo(sentFrames);
            assertThat(checker.bytes).isEqualTo(sentBytes);
            assertThat(errors).isEmpty();
            transport.close();
        }
    }
}
