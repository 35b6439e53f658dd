package dev.peregrine.shm;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.SendResult;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A peer whose rendezvous socket ends: what it wrote before is delivered before {@code onClosed}, a bounded amount
 * per cycle, and a send to it meanwhile answers CLOSED; a ring that keeps filling afterwards (a process still holding
 * the mapping) neither holds the reactor inside one cycle nor keeps the channel open for ever, and that ring, like a
 * corrupt one, is a fault of the peer, counted and reported. The peers are raw: a rendezvous socket and a
 * {@link ShmRingWriter} on the offered ring, so the test decides when each goes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShmTransportPeerGoneTest {
    private static final int CAPACITY = 256 * 1024;
    /** Most records one lap of the ring can hold. */
    private static final int LAP = CAPACITY / ShmRingDescriptor.RECORD_HEADER_LENGTH;

    @TempDir
    Path dir;

    private final List<Throwable> errors = new ArrayList<>();
    private final Reactor reactor = new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy())
        .errorHandler(errors::add));
    private final MemorySegment message = Arena.ofAuto().allocate(8);
    private final Arena peerArena = Arena.ofShared();

    /** Counts messages per channel and records the order of the first message of each channel and of closes. */
    private static final class Counter implements ChannelHandler {
        final Map<Long, SocketAddress> listening = new HashMap<>();
        final List<Long> accepted = new ArrayList<>();
        final Map<Long, Long> messages = new HashMap<>();
        final Map<Long, Long> lastValue = new HashMap<>();
        final List<String> events = new ArrayList<>();
        long outOfOrder;
        Runnable afterMessage;

        @Override
        public void onListening(final long serverId, final SocketAddress localAddress) {
            listening.put(serverId, localAddress);
        }

        @Override
        public void onAccepted(final long serverId, final long channelId, final SocketAddress remoteAddress) {
            accepted.add(channelId);
        }

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            final long value = buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
            if (value != lastValue.getOrDefault(channelId, 0L) + 1) {
                outOfOrder++;
            }
            lastValue.put(channelId, value);
            if (messages.merge(channelId, 1L, Long::sum) == 1) {
                events.add("first message " + channelId);
            }
            if (afterMessage != null) {
                afterMessage.run();
            }
        }

        @Override
        public void onClosed(final long channelId, final CloseReason reason, final String detail) {
            events.add("closed " + channelId + " " + reason + " " + detail);
        }

        long messages(final long channelId) {
            return messages.getOrDefault(channelId, 0L);
        }
    }

    /** The client end of a rendezvous, done by hand: the socket and a writer on the client-to-server ring. */
    private record RawPeer(SocketChannel socket, ShmRingWriter writer) {
    }

    @AfterEach
    void closeReactor() {
        reactor.close();
        peerArena.close();
    }

    @Test
    void shouldKeepTheReactorGoingAndCloseTheChannelWhenAGonePeerKeepsWritingIntoItsRing() throws IOException {
        final Counter counter = new Counter();
        final ShmTransport transport = new ShmTransport(reactor, options(), counter);
        final UnixDomainSocketAddress address = listen(transport, counter);
        final RawPeer hostile = connect(address, counter);
        final long hostileChannel = counter.accepted.getLast();
        final RawPeer other = connect(address, counter);
        final long otherChannel = counter.accepted.getLast();

        for (long i = 1; i <= 10; i++) {
            write(hostile.writer(), i);
        }
        // the peer drops its socket but something still holding the mapping writes on: a message for every one
        // read, so the ring never empties; capped at three laps so that a transport without a bound still ends
        final long cap = 3L * LAP;
        final long[] written = {10};
        counter.afterMessage = () -> {
            if (written[0] < cap && counter.events.stream().noneMatch(event -> event.startsWith("closed"))) {
                write(hostile.writer(), ++written[0]);
            }
        };
        hostile.socket().close();
        for (long i = 1; i <= 100; i++) {
            write(other.writer(), i);
        }

        long mostInOneCycle = 0;
        for (int cycle = 0; cycle < 10_000 && counter.events.stream().noneMatch(event -> event.startsWith("closed")); cycle++) {
            final long before = counter.messages(hostileChannel);
            reactor.doWork();
            mostInOneCycle = Math.max(mostInOneCycle, counter.messages(hostileChannel) - before);
        }

        assertThat(counter.events).as("the other channel is served while the gone peer's ring is drained")
            .containsSubsequence("first message " + hostileChannel, "first message " + otherChannel);
        assertThat(counter.events.indexOf("first message " + otherChannel))
            .isLessThan(indexOfClose(counter, hostileChannel));
        assertThat(mostInOneCycle).as("messages of the gone peer delivered in one cycle").isLessThan(LAP);
        assertThat(counter.events.get(indexOfClose(counter, hostileChannel)))
            .startsWith("closed " + hostileChannel + " ERROR").contains("kept filling");
        assertThat(counter.messages(hostileChannel)).as("what was there when the peer went, and then a bounded amount")
            .isGreaterThanOrEqualTo(10).isLessThan(written[0]).isLessThanOrEqualTo(2L * LAP);
        assertThat(counter.messages(otherChannel)).isEqualTo(100);
        assertThat(counter.outOfOrder).isZero();
        assertThat(errors).as("reported like any other fault of a peer").hasSize(1);
        assertThat(errors.getFirst()).hasMessageContaining("shared-memory channel " + hostileChannel + ":")
            .hasMessageContaining("kept filling");
        assertThat(transport.peerFaults()).isEqualTo(1);
        other.socket().close();
        transport.close();
    }

    @Test
    void shouldDeliverEverythingWrittenBeforeAnOrderlyCloseBeforeOnClosedEvenWhenItTakesSeveralCycles() throws IOException {
        final Counter counter = new Counter();
        final ShmTransport transport = new ShmTransport(reactor, options(), counter);
        final UnixDomainSocketAddress address = listen(transport, counter);
        final RawPeer peer = connect(address, counter);
        final long channel = counter.accepted.getLast();
        final long count = 10_000; // more than one cycle's drain
        for (long i = 1; i <= count; i++) {
            write(peer.writer(), i);
        }
        peer.writer().close();
        peer.socket().close();

        runUntil(() -> counter.events.stream().anyMatch(event -> event.startsWith("closed")));

        assertThat(counter.messages(channel)).isEqualTo(count);
        assertThat(counter.lastValue.get(channel)).isEqualTo(count);
        assertThat(counter.outOfOrder).isZero();
        assertThat(counter.events).containsExactly("first message " + channel,
            "closed " + channel + " BY_PEER peer closed the shared-memory channel");
        assertThat(errors).isEmpty();
        transport.close();
    }

    @Test
    void shouldCountAndReportACorruptRingAsAFaultOfThePeerAndCloseOnlyItsChannel() throws IOException {
        final Counter counter = new Counter();
        final ShmTransport transport = new ShmTransport(reactor, options(), counter);
        final UnixDomainSocketAddress address = listen(transport, counter);
        final RawPeer hostile = connect(address, counter);
        final long hostileChannel = counter.accepted.getLast();
        final RawPeer other = connect(address, counter);
        final long otherChannel = counter.accepted.getLast();
        write(hostile.writer(), 1);
        message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 2);
        final long index = hostile.writer().offer(message, 0, 8);
        assertThat(index).isNotNegative();
        // the second record's frame length: shorter than a record header
        hostile.writer().buffer().set(ValueLayout.JAVA_INT, index - ShmRingDescriptor.RECORD_HEADER_LENGTH, 3);
        write(other.writer(), 1);

        runUntil(() -> counter.events.stream().anyMatch(event -> event.startsWith("closed"))
            && counter.messages(otherChannel) == 1);

        assertThat(counter.messages(hostileChannel)).isEqualTo(1);
        assertThat(counter.events.get(indexOfClose(counter, hostileChannel)))
            .startsWith("closed " + hostileChannel + " ERROR inbound ring corrupt: frameLength=3");
        assertThat(errors).hasSize(1);
        assertThat(errors.getFirst()).hasMessageStartingWith("shared-memory channel " + hostileChannel + ": inbound ring"
            + " corrupt: frameLength=3");
        assertThat(transport.peerFaults()).isEqualTo(1);
        assertThat(counter.events).as("the other channel stays open").noneMatch(event -> event.startsWith("closed "
            + otherChannel));
        hostile.socket().close();
        other.socket().close();
        transport.close();
    }

    @Test
    void shouldAnswerClosedToASendOnceThePeerIsGoneWhileWhatItWroteIsStillBeingDelivered() throws IOException {
        final Counter counter = new Counter();
        final ShmTransport transport = new ShmTransport(reactor, options(), counter);
        final UnixDomainSocketAddress address = listen(transport, counter);
        final RawPeer peer = connect(address, counter);
        final long channel = counter.accepted.getLast();
        final long count = 10_000; // more than one cycle's drain
        for (long i = 1; i <= count; i++) {
            write(peer.writer(), i);
        }
        peer.socket().close(); // died: the ring is not marked closed

        // the cycle that delivers the first of them has seen the socket end too (selected before any poll)
        runUntil(() -> counter.messages(channel) > 0);
        assertThat(counter.events).as("still draining").containsExactly("first message " + channel);
        message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 42);
        assertThat(transport.send(channel, message, 0, 8)).as("nobody will read the ring any more")
            .isEqualTo(SendResult.CLOSED);

        runUntil(() -> counter.events.stream().anyMatch(event -> event.startsWith("closed")));
        assertThat(counter.messages(channel)).isEqualTo(count);
        assertThat(counter.events).containsExactly("first message " + channel, "closed " + channel
            + " RESET peer process died or dropped the rendezvous socket without closing its ring");
        assertThat(transport.send(channel, message, 0, 8)).isEqualTo(SendResult.NOT_CONNECTED);
        assertThat(errors).isEmpty();
        transport.close();
    }

    private ShmOptions options() {
        return new ShmOptions().ringCapacity(CAPACITY).maxMessageLength(64).maxMessagesInFlight(16_384)
            .recordAlignment(ShmRingDescriptor.RECORD_HEADER_LENGTH).ringDirectory(dir);
    }

    private UnixDomainSocketAddress listen(final ShmTransport transport, final Counter counter) {
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("s.sock"));
        final long serverId = transport.listen(address);
        runUntil(() -> counter.listening.containsKey(serverId));
        return address;
    }

    private RawPeer connect(final UnixDomainSocketAddress address, final Counter counter) throws IOException {
        final int acceptedBefore = counter.accepted.size();
        final SocketChannel socket = SocketChannel.open(StandardProtocolFamily.UNIX);
        socket.connect(address);
        socket.configureBlocking(false);
        final ByteBuffer offerBuffer = ShmHandshake.newBuffer();
        final ShmHandshake.Offer[] offer = new ShmHandshake.Offer[1];
        runUntil(() -> {
            try {
                socket.read(offerBuffer);
            } catch (final IOException ex) {
                throw new IllegalStateException(ex);
            }
            offer[0] = ShmHandshake.readOffer(offerBuffer);
            return offer[0] != null;
        });
        final MemorySegment clientToServer = ShmRingFile.map(offer[0].clientToServer(), offer[0].capacity(),
            offer[0].maxMessageLength(), peerArena);
        socket.write(ByteBuffer.wrap(new byte[] {ShmHandshake.ACK}));
        runUntil(() -> counter.accepted.size() == acceptedBefore + 1);
        return new RawPeer(socket, new ShmRingWriter(clientToServer));
    }

    private void write(final ShmRingWriter writer, final long value) {
        message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        assertThat(writer.offer(message, 0, 8)).as("room in the ring for message %d", value).isNotNegative();
    }

    private static int indexOfClose(final Counter counter, final long channelId) {
        for (int i = 0; i < counter.events.size(); i++) {
            if (counter.events.get(i).startsWith("closed " + channelId + " ")) {
                return i;
            }
        }
        return Integer.MAX_VALUE;
    }

    private void runUntil(final BooleanSupplier condition) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition not reached in time").isLessThan(deadline);
            reactor.doWork();
        }
    }
}
