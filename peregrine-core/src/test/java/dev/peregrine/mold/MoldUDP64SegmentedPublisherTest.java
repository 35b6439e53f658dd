package dev.peregrine.mold;

import dev.peregrine.reactor.Reactor;
import dev.peregrine.testkit.AllocationMeter;
import dev.peregrine.udp.UdpEndpoint;
import dev.peregrine.udp.UdpOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static dev.peregrine.mold.MoldFixture.address;
import static dev.peregrine.mold.MoldFixture.capture;
import static dev.peregrine.mold.MoldFixture.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The publisher on an endpoint that segments ({@link UdpEndpoint#sendSegmented}): the full packets of a cycle leave
 * together in one {@code sendmsg(2)}, and the wire carries, byte for byte, the packets that a publisher sending each
 * packet alone puts there.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
final class MoldUDP64SegmentedPublisherTest {
    /** The marker datagram's one byte. */
    private static final byte MARKER = 0x7F;
    private static final int SIZE = 32;
    private final Reactor reactor = MoldFixture.reactor(System::nanoTime);
    private final List<AutoCloseable> resources = new ArrayList<>();

    @BeforeEach
    void requireSegmentation() {
        // Linux x86_64/aarch64 with native access, which this build runs with: a missing one is a failure here,
        // not a skip, so that the segmented path is never left untested on the machines it is written for
        assertNull(UdpEndpoint.nativeSocketUnavailableReason(), "the native UDP socket must be available here");
    }

    @AfterEach
    void close() throws Exception {
        for (final AutoCloseable resource : resources) {
            resource.close();
        }
        reactor.close();
    }

    private DatagramChannel listener() {
        final DatagramChannel channel = capture();
        try {
            channel.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 4 << 20);
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
        resources.add(channel);
        return channel;
    }

    private MoldUDP64Publisher publisher(final DatagramChannel listener, final boolean segmenting,
                                         final MoldUDP64PacketFilter filter) {
        final MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("SEGMENTS", 1 << 16, 16L << 20);
        resources.add(store);
        final InetSocketAddress destination = address(listener);
        final UdpOptions udp = new UdpOptions().localAddress(MoldFixture.loopback(0));
        if (segmenting) {
            udp.remoteAddress(destination).busyPoll(true).connectedReadWrite(true).nativeSocket(true);
        }
        final MoldUDP64Publisher publisher = new MoldUDP64Publisher(reactor, store, new MoldUDP64PublisherOptions()
            .destination(destination).flushDelayNs(0).filter(filter).segmentation(segmenting).udp(udp));
        assertThat(publisher.endpoint().segmentationUnavailableReason() == null).isEqualTo(segmenting);
        return publisher;
    }

    /**
     * The datagrams that came before a marker the test sends after them (a 1-byte datagram, shorter than any
     * MoldUDP64 packet): "nothing more" is proven by the marker, not by a quiet time. Sent from this thread after
     * the publisher's sends, on loopback it queues behind them. The deadline only fails a wait that hung.
     */
    private static List<byte[]> drain(final DatagramChannel channel) {
        final List<byte[]> datagrams = new ArrayList<>();
        final ByteBuffer buffer = ByteBuffer.allocate(65536);
        try (DatagramChannel marker = DatagramChannel.open()) {
            marker.send(ByteBuffer.wrap(new byte[] {MARKER}), channel.getLocalAddress());
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (true) {
                buffer.clear();
                if (channel.receive(buffer) != null) {
                    buffer.flip();
                    if (buffer.remaining() == 1 && buffer.get(0) == MARKER) {
                        return datagrams;
                    }
                    final byte[] bytes = new byte[buffer.remaining()];
                    buffer.get(bytes);
                    datagrams.add(bytes);
                } else {
                    assertThat(System.nanoTime()).as("the marker never came; before it: %d datagrams",
                        datagrams.size()).isLessThan(deadline);
                }
            }
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static MemorySegment message(final long value, final int size) {
        final MemorySegment message = Arena.ofAuto().allocate(size);
        for (int i = 0; i < size; i++) {
            message.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte)(value * 31 + i));
        }
        return message;
    }

    @Test
    void shouldSendTheFullPacketsOfACycleTogetherInOneSystemCallAsOrdinaryPackets() {
        final DatagramChannel listener = listener();
        final MoldUDP64Publisher publisher = publisher(listener, true, (sequence, count) -> true);
        final int perPacket = MoldUDP64Layout.DEFAULT_MAX_PAYLOAD / (MoldUDP64Layout.BLOCK_HEADER_LENGTH + SIZE);
        final int messages = 4 * perPacket + 10;
        for (int i = 1; i <= messages; i++) {
            assertThat(publisher.offer(message(i, SIZE), 0, SIZE)).isEqualTo(i);
        }
        assertThat(drain(listener)).as("full packets wait for the end of the cycle").isEmpty();
        assertThat(publisher.pendingMessages()).isEqualTo(messages);

        reactor.doWork();

        final List<byte[]> datagrams = drain(listener);
        assertThat(datagrams).hasSize(5);
        for (int p = 0; p < 5; p++) {
            final ByteBuffer packet = ByteBuffer.wrap(datagrams.get(p)).order(ByteOrder.BIG_ENDIAN);
            final int count = p < 4 ? perPacket : 10;
            assertThat(packet.remaining()).isEqualTo(MoldUDP64Layout.HEADER_LENGTH + count * (SIZE + 2));
            assertThat(packet.getLong(10)).as("sequence of packet " + p).isEqualTo(1 + (long)p * perPacket);
            assertThat(Short.toUnsignedInt(packet.getShort(18))).isEqualTo(count);
            for (int m = 0; m < count; m++) {
                final int at = MoldUDP64Layout.HEADER_LENGTH + m * (SIZE + 2);
                assertThat(packet.getShort(at)).isEqualTo((short)SIZE);
                final byte[] payload = new byte[SIZE];
                packet.get(at + 2, payload);
                assertThat(hex(payload)).isEqualTo(hex(message(1 + (long)p * perPacket + m, SIZE)
                    .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));
            }
        }
        assertThat(publisher.endpoint().segmentedSends()).as("one sendmsg for the five packets").isEqualTo(1);
        assertThat(publisher.packetsSent()).isEqualTo(5);
        assertThat(publisher.pendingMessages()).isZero();
    }

    /**
     * Random sizes (so packets of unequal length end bursts and start new ones), random cycle boundaries and a
     * filter that drops packets: the segmenting publisher puts on the wire exactly what the one-packet-per-send
     * publisher does, in the same order.
     */
    @Test
    void shouldPutOnTheWireExactlyThePacketsOfAPublisherThatSendsEachAlone() {
        for (long seed = 1; seed <= 20; seed++) {
            final DatagramChannel plainListener = listener();
            final DatagramChannel segmentedListener = listener();
            final MoldUDP64PacketFilter dropSome = (sequence, count) -> (sequence * 0x9E3779B97F4A7C15L >>> 40) % 6 != 0;
            final MoldUDP64Publisher plain = publisher(plainListener, false, dropSome);
            final MoldUDP64Publisher segmented = publisher(segmentedListener, true, dropSome);
            final SplittableRandom random = new SplittableRandom(seed);
            final boolean fixed = seed % 2 == 0; // runs of equal packets, as a feed of one message type gives
            for (int i = 1; i <= 3000; i++) {
                final int size = fixed ? SIZE : random.nextInt(0, 400);
                final MemorySegment message = message(i, size);
                assertThat(segmented.offer(message, 0, size)).isEqualTo(plain.offer(message, 0, size));
                if (random.nextInt(200) == 0) {
                    reactor.doWork(); // a cycle ends: both send what they hold
                }
            }
            reactor.doWork();
            final List<byte[]> expected = drain(plainListener);
            final List<byte[]> actual = drain(segmentedListener);
            assertThat(actual).as("seed " + seed).hasSameSizeAs(expected);
            for (int i = 0; i < expected.size(); i++) {
                assertThat(hex(actual.get(i))).as("seed " + seed + " datagram " + i).isEqualTo(hex(expected.get(i)));
            }
            assertThat(segmented.packetsSent()).isEqualTo(plain.packetsSent()).isEqualTo(expected.size());
            assertThat(segmented.packetsDropped()).isEqualTo(plain.packetsDropped()).isPositive();
            if (fixed) {
                assertThat(segmented.endpoint().segmentedSends()).as("seed " + seed)
                    .isLessThan(expected.size() / 4);
            }
        }
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS) // up to 10 sets of 40 000 cycles on a loaded machine
    void shouldAllocateNothingPerMessageOrPerBurst() {
        final DatagramChannel listener = listener();
        final MoldUDP64Publisher publisher = publisher(listener, true, (sequence, count) -> true);
        final MemorySegment message = message(7, SIZE);
        final ByteBuffer sink = ByteBuffer.allocateDirect(65536);
        final Runnable cycle = () -> {
            for (int i = 0; i < 100; i++) { // two full packets and a part: one burst and a flush per cycle
                publisher.offer(message, 0, SIZE);
            }
            reactor.doWork();
            try {
                sink.clear();
                while (listener.receive(sink) != null) { // keep the listener's buffer from filling
                    sink.clear();
                }
            } catch (final IOException ex) {
                throw new UncheckedIOException(ex);
            }
        };

        // Until C2 has compiled the cycle, each of its two downcalls (UdpNativeSocket's sendmsg and recv) allocates:
        // the JDK slices the errno capture segment on every call (SharedUtils.checkCaptureSegment, one
        // NativeMemorySegmentImpl) and only C2's escape analysis removes it. Traced with -XX:TieredStopAtLevel=1,
        // -XX:-UseTLAB and JFR's ObjectAllocationOutsideTLAB: exactly those two per cycle, nothing else on the thread.
        // On a loaded 2-core machine C2 may come after any fixed warm-up (40 B a cycle seen: one of the two still
        // uncompiled). So the warm-up is not a fixed count: sets of 10 windows are measured until one allocates
        // nothing at all, at most 10 sets (AllocationMeter.firstCleanSet). An allocation in every cycle, or in one
        // cycle of every 20 000, shows in every set and fails.
        final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(20_000, 2_000, 10, 10, cycle);

        assertThat(publisher.endpoint().segmentedSends()).isGreaterThan(20_000);
        assertThat(measured.totalBytes()).as("bytes in the last of %d sets of 10 windows", measured.sets()).isZero();
    }

    /** Bursts out, coalesced reads in: the subscriber still gets every message once, in order, byte for byte. */
    @Test
    void shouldReachASubscriberReadingCoalescedBurstsWithEveryMessageOnceInOrder() throws Exception {
        final int publisherPort;
        final int feedPort;
        try (java.net.DatagramSocket a = new java.net.DatagramSocket(MoldFixture.loopback(0));
             java.net.DatagramSocket b = new java.net.DatagramSocket(MoldFixture.loopback(0))) {
            publisherPort = a.getLocalPort();
            feedPort = b.getLocalPort();
        }
        final MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("SEGMENTS", 1 << 16, 16L << 20);
        resources.add(store);
        final MoldUDP64Publisher publisher = new MoldUDP64Publisher(reactor, store, new MoldUDP64PublisherOptions()
            .destination(MoldFixture.loopback(feedPort)).flushDelayNs(0).segmentation(true).udp(new UdpOptions()
                .localAddress(MoldFixture.loopback(publisherPort)).remoteAddress(MoldFixture.loopback(feedPort))
                .busyPoll(true).connectedReadWrite(true).nativeSocket(true)));
        final long[] next = {1};
        final List<String> failures = new ArrayList<>();
        final MoldUDP64Subscriber subscriber = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
            .feed(new UdpOptions().localAddress(MoldFixture.loopback(feedPort)).remoteAddress(MoldFixture.loopback(publisherPort))
                .busyPoll(true).connectedReadWrite(true).nativeSocket(true).receiveOffload(true).receiveBufferSize(4 << 20))
            .requestServer(MoldFixture.loopback(1)).session("SEGMENTS").startSequence(1),
            (sequence, buffer, offset, length) -> {
                final int size = (int)(sequence % 50);
                if (sequence != next[0] || length != size
                    || !hex(buffer.asSlice(offset, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE))
                        .equals(hex(message(sequence, size).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)))) {
                    failures.add("sequence " + sequence + " length " + length + " expected " + next[0]);
                }
                next[0] = sequence + 1;
            });
        resources.add(subscriber);
        final int messages = 20_000;
        for (long sequence = 1; sequence <= messages; sequence++) {
            final int size = (int)(sequence % 50);
            assertThat(publisher.offer(message(sequence, size), 0, size)).isEqualTo(sequence);
            if (sequence % 1000 == 0) {
                reactor.doWork(); // a burst of about 30 packets, read in a few coalesced reads
            }
        }
        MoldFixture.spinUntil(reactor, () -> next[0] > messages, 10);

        assertThat(failures).isEmpty();
        assertThat(subscriber.feedEndpoint().coalescedReads()).isPositive();
        assertThat(publisher.endpoint().segmentedSends()).isPositive();
    }

    @Test
    void shouldSendEachFullPacketAtOnceUnlessSegmentationIsAskedFor() {
        final DatagramChannel listener = listener();
        final MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("SEGMENTS", 1 << 16, 16L << 20);
        resources.add(store);
        final InetSocketAddress destination = address(listener);
        final MoldUDP64Publisher publisher = new MoldUDP64Publisher(reactor, store, new MoldUDP64PublisherOptions()
            .destination(destination).flushDelayNs(0).udp(new UdpOptions().localAddress(MoldFixture.loopback(0))
                .remoteAddress(destination).busyPoll(true).connectedReadWrite(true).nativeSocket(true)));
        assertThat(publisher.endpoint().segmentationUnavailableReason()).isNull();
        final int perPacket = MoldUDP64Layout.DEFAULT_MAX_PAYLOAD / (MoldUDP64Layout.BLOCK_HEADER_LENGTH + SIZE);
        for (int i = 1; i <= 2 * perPacket + 1; i++) {
            publisher.offer(message(i, SIZE), 0, SIZE);
        }

        assertThat(drain(listener)).as("two full packets, each sent as it filled").hasSize(2);
        assertThat(publisher.endpoint().segmentedSends()).isZero();
    }
}
