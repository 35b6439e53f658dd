package dev.peregrine.mold;

import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.testkit.Needs;
import dev.peregrine.udp.UdpOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Multicast for every machine, root or not: two subscribers join a group on the loopback interface, as any
 * unprivileged process may (Linux lets a socket join on {@code lo} although {@code lo} lacks the MULTICAST flag,
 * and loops the group's datagrams back to the host's members), and the publisher drops a tenth of its packets, so
 * both subscribers recover from the request server. {@link MoldUDP64NetnsTest} does the same across namespaces,
 * where root is.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MoldUDP64LoopbackMulticastTest {
    private static final InetAddress GROUP = address("239.77.2.1");
    private static final long MESSAGES = 5_000;

    private static InetAddress address(final String name) {
        try {
            return InetAddress.getByName(name);
        } catch (final IOException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** Null when a group joined on {@code nif} hears itself, otherwise why not. */
    private static String multicastUnavailableReason(final NetworkInterface nif) {
        if (nif == null) {
            return "no interface named lo";
        }
        try (DatagramChannel receiver = DatagramChannel.open(StandardProtocolFamily.INET);
             DatagramChannel sender = DatagramChannel.open(StandardProtocolFamily.INET)) {
            receiver.bind(new InetSocketAddress(0)).join(GROUP, nif);
            sender.setOption(StandardSocketOptions.IP_MULTICAST_IF, nif).setOption(StandardSocketOptions.IP_MULTICAST_LOOP, true);
            final int port = ((InetSocketAddress)receiver.getLocalAddress()).getPort();
            final ByteBuffer probe = ByteBuffer.allocate(8);
            receiver.configureBlocking(false);
            for (int attempt = 0; attempt < 100; attempt++) { // datagrams on loopback can be dropped; a few tries
                sender.send(ByteBuffer.wrap(new byte[] {1}), new InetSocketAddress(GROUP, port));
                final long deadline = System.nanoTime() + 100_000_000L; // fails a wait that hung only
                while (System.nanoTime() < deadline) {
                    if (receiver.receive(probe.clear()) != null) {
                        return null;
                    }
                    Thread.onSpinWait();
                }
            }
            return "a datagram sent to " + GROUP.getHostAddress() + " on " + nif.getName() + " never came back";
        } catch (final IOException | RuntimeException ex) {
            return "joining " + GROUP.getHostAddress() + " on " + nif.getName() + " failed: " + ex;
        }
    }

    private static int freePort() throws IOException {
        try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(0))) {
            return probe.getLocalPort();
        }
    }

    @Test
    void shouldDeliverEveryMessageToTwoMembersOfALoopbackGroupRecoveringWhatThePublisherDropped() throws Exception {
        final NetworkInterface lo = NetworkInterface.getByName("lo");
        Needs.configuration("multicast on lo", multicastUnavailableReason(lo) == null, String.valueOf(multicastUnavailableReason(lo)));
        final int port = freePort();
        final SplittableRandom loss = new SplittableRandom(35);
        final long[][] seen = new long[2][2]; // per subscriber: next expected, out-of-order or wrong payload
        try (Reactor reactor = new Reactor(new ReactorOptions());
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("LOOPMC", 1 << 16, 1 << 24)) {
            final MoldUDP64RequestServer server = new MoldUDP64RequestServer(reactor, store,
                new UdpOptions().localAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)),
                MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, 100_000, 1000);
            final MoldUDP64Subscriber[] subscribers = new MoldUDP64Subscriber[2];
            for (int s = 0; s < 2; s++) {
                final long[] mine = seen[s];
                mine[0] = 1;
                subscribers[s] = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
                    .feed(new UdpOptions().localAddress(new InetSocketAddress(port)).reuseAddress(true).receiveBufferSize(1 << 22))
                    .group(GROUP, lo).requestServer(server.localAddress()).startSequence(1).requestTimeoutNs(20_000_000L),
                    (sequence, buffer, offset, length) -> {
                        if (sequence != mine[0] || length != 8 || buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset) != sequence) {
                            mine[1]++;
                        }
                        mine[0] = sequence + 1;
                    });
            }
            final MoldUDP64Publisher publisher = new MoldUDP64Publisher(reactor, store, new MoldUDP64PublisherOptions()
                .destination(new InetSocketAddress(GROUP, port))
                .udp(new UdpOptions().multicastInterface(lo).multicastLoopback(true))
                .heartbeatIntervalNs(10_000_000L).endOfSessionRepeats(10)
                .filter((sequence, messages) -> messages == 0 || messages == MoldUDP64Layout.END_OF_SESSION
                    || loss.nextDouble() >= 0.1));
            final MemorySegment message = Arena.ofAuto().allocate(8);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); // fails a hang only: ~1 s expected
            while ((subscribers[0].state() != MoldUDP64SubscriberState.END_OF_SESSION
                || subscribers[1].state() != MoldUDP64SubscriberState.END_OF_SESSION) && System.nanoTime() < deadline) {
                for (int i = 0; i < 20 && publisher.nextSequence() <= MESSAGES; i++) {
                    message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, publisher.nextSequence());
                    publisher.offer(message, 0, 8);
                    if (publisher.nextSequence() > MESSAGES) {
                        publisher.close();
                    }
                }
                reactor.doWork();
            }

            assertThat(publisher.packetsDropped()).as("packets the publisher dropped on purpose").isPositive();
            for (int s = 0; s < 2; s++) {
                assertThat(subscribers[s].state()).as("subscriber %d", s).isEqualTo(MoldUDP64SubscriberState.END_OF_SESSION);
                assertThat(subscribers[s].delivered()).as("subscriber %d delivered", s).isEqualTo(MESSAGES);
                assertThat(seen[s]).as("subscriber %d: next expected, errors", s).containsExactly(MESSAGES + 1, 0);
                assertThat(subscribers[s].recovered()).as("subscriber %d recovered from the request server", s).isPositive();
                assertThat(subscribers[s].unrecoverable()).as("subscriber %d unrecoverable", s).isZero();
            }
            assertThat(server.answers()).isPositive();
        }
    }
}
