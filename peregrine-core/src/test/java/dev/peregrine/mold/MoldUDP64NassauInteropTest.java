package dev.peregrine.mold;

import com.paritytrading.nassau.moldudp64.MoldUDP64Client;
import com.paritytrading.nassau.moldudp64.MoldUDP64ClientState;
import com.paritytrading.nassau.moldudp64.MoldUDP64ClientStatusListener;
import com.paritytrading.nassau.moldudp64.MoldUDP64DefaultMessageStore;
import com.paritytrading.nassau.moldudp64.MoldUDP64DownstreamPacket;
import com.paritytrading.nassau.moldudp64.MoldUDP64RequestServer;
import com.paritytrading.nassau.moldudp64.MoldUDP64Server;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.udp.UdpOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Both directions against Nassau 1.0.0, the Java MoldUDP64 implementation, over loopback with loss. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MoldUDP64NassauInteropTest {
    private static final int MESSAGES = 3_000;

    /** Message {@code sequence}: a length that varies (zero included), filled with the low byte of the sequence. */
    private static byte[] message(final long sequence) {
        final byte[] bytes = new byte[(int)(sequence * 7 % 40)];
        java.util.Arrays.fill(bytes, (byte)sequence);
        return bytes;
    }

    private static boolean matches(final long sequence, final byte[] bytes) {
        return java.util.Arrays.equals(bytes, message(sequence));
    }

    @Test
    void shouldServeNassauClientFromOurPublisherAndRequestServer() throws Exception {
        final List<byte[]> received = new ArrayList<>();
        final List<MoldUDP64ClientState> states = new ArrayList<>();
        final long[] packets = new long[1];
        try (Reactor reactor = MoldFixture.reactor(System::nanoTime);
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("NASSAU1", 1 << 16, 1 << 22);
             DatagramChannel feed = MoldFixture.capture();
             DatagramChannel requests = MoldFixture.capture()) {
            final dev.peregrine.mold.MoldUDP64RequestServer server = new dev.peregrine.mold.MoldUDP64RequestServer(reactor, store,
                new UdpOptions().localAddress(MoldFixture.loopback(0)), MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, 100_000, 100);
            final MoldUDP64Publisher publisher = new MoldUDP64Publisher(reactor, store, new MoldUDP64PublisherOptions()
                .destination(MoldFixture.address(feed)).heartbeatIntervalNs(10_000_000L)
                .filter((sequence, count) -> count == 0 || ++packets[0] % 5 != 0));
            final MoldUDP64Client client = new MoldUDP64Client(feed, requests, server.localAddress(), buffer -> {
                final byte[] bytes = new byte[buffer.remaining()];
                buffer.get(bytes);
                received.add(bytes);
            }, new StatusRecorder(states), 1);

            final MemorySegment scratch = MemorySegment.ofArray(new byte[64]);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            long next = 1;
            while (received.size() < MESSAGES && System.nanoTime() < deadline) {
                for (int i = 0; i < 7 && next <= MESSAGES; i++, next++) {
                    final byte[] bytes = message(next);
                    MemorySegment.copy(bytes, 0, scratch, ValueLayout.JAVA_BYTE, 0, bytes.length);
                    publisher.offer(scratch, 0, bytes.length);
                }
                reactor.doWork();
                while (client.receive() || client.receiveResponse()) {
                    reactor.doWork();
                }
            }

            // a while longer: a message delivered twice would show now
            for (int i = 0; i < 1_000; i++) {
                reactor.doWork();
                while (client.receive() || client.receiveResponse()) {
                    reactor.doWork();
                }
            }

            assertThat(received).as("each message once").hasSize(MESSAGES);
            for (int i = 0; i < MESSAGES; i++) {
                assertThat(matches(i + 1, received.get(i))).as("message %d in order", i + 1).isTrue();
            }
            assertThat(publisher.packetsDropped()).as("every fifth data packet").isEqualTo(packets[0] / 5).isPositive();
            assertThat(server.answers()).as("the client asked for what was dropped").isPositive();
            assertThat(states).contains(MoldUDP64ClientState.SYNCHRONIZED);
        }
    }

    @Test
    void shouldFollowNassauServerAndRecoverFromNassauRequestServer() throws Exception {
        final List<String> problems = new ArrayList<>();
        final long[] next = {1};
        final MoldUDP64DefaultMessageStore nassauStore = new MoldUDP64DefaultMessageStore();
        try (Reactor reactor = MoldFixture.reactor(System::nanoTime);
             DatagramChannel serverChannel = DatagramChannel.open();
             DatagramChannel requestChannel = MoldFixture.capture()) {
            final MoldUDP64Subscriber subscriber = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
                .feed(new UdpOptions().localAddress(MoldFixture.loopback(0))).requestServer(MoldFixture.address(requestChannel))
                .session("NASSAU2").startSequence(1).requestTimeoutNs(20_000_000L), (sequence, buffer, offset, length) -> {
                    final byte[] bytes = buffer.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
                    if (sequence != next[0] || !matches(sequence, bytes)) {
                        problems.add("message " + sequence + " expected " + next[0]);
                    }
                    next[0] = sequence + 1;
                });
            serverChannel.connect(subscriber.feedEndpoint().localAddress());
            final MoldUDP64Server server = new MoldUDP64Server(serverChannel, "NASSAU2");
            final MoldUDP64RequestServer requestServer = new MoldUDP64RequestServer(requestChannel);
            final MoldUDP64DownstreamPacket packet = new MoldUDP64DownstreamPacket();

            long sequence = 1;
            int packetNumber = 0;
            long lost = 0;
            while (sequence <= MESSAGES) {
                final long first = sequence;
                for (int i = 0; i < 9 && sequence <= MESSAGES; i++, sequence++) {
                    final byte[] bytes = message(sequence);
                    packet.put(ByteBuffer.wrap(bytes));
                    nassauStore.put(ByteBuffer.wrap(bytes));
                }
                if (++packetNumber % 4 == 0) {
                    server.setNextSequenceNumber((int)sequence); // lost on the way: only the store has it
                    lost += sequence - first;
                } else {
                    server.send(packet);
                }
                packet.clear();
                pump(reactor, requestServer, nassauStore, 3);
            }
            server.sendEndOfSession();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (subscriber.state() != MoldUDP64SubscriberState.END_OF_SESSION && System.nanoTime() < deadline) {
                pump(reactor, requestServer, nassauStore, 1);
            }

            pump(reactor, requestServer, nassauStore, 20); // a message delivered twice would show now

            assertThat(problems).as("each message once, in order").isEmpty();
            assertThat(next[0]).isEqualTo(MESSAGES + 1);
            assertThat(subscriber.delivered()).isEqualTo(MESSAGES);
            // what never came on the feed can only have come from Nassau's request server; the messages of a packet
            // that arrived past a gap may have come from it too, depending on timing
            assertThat(lost).as("every fourth of the 334 packets, 9 messages each").isEqualTo(83L * 9);
            assertThat(subscriber.recovered()).isBetween(lost, (long)MESSAGES);
            assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.END_OF_SESSION);
        }
    }

    private static void pump(final Reactor reactor, final MoldUDP64RequestServer requestServer,
        final MoldUDP64DefaultMessageStore store, final int cycles) throws java.io.IOException {
        for (int i = 0; i < cycles * 50; i++) {
            reactor.doWork();
            requestServer.serve(store);
        }
    }

    /** Records Nassau's client states. */
    private record StatusRecorder(List<MoldUDP64ClientState> states) implements MoldUDP64ClientStatusListener {
        @Override
        public void state(final MoldUDP64Client session, final MoldUDP64ClientState next) {
            states.add(next);
        }

        @Override
        public void downstream(final MoldUDP64Client session, final long sequenceNumber, final int messageCount) {
        }

        @Override
        public void request(final MoldUDP64Client session, final long sequenceNumber, final int requestedMessageCount) {
        }

        @Override
        public void endOfSession(final MoldUDP64Client session) {
        }
    }
}
