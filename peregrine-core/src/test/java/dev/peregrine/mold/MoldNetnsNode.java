package dev.peregrine.mold;

import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.reactor.YieldingIdleStrategy;
import dev.peregrine.udp.UdpOptions;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.util.SplittableRandom;

/**
 * One side of {@link MoldUDP64NetnsTest}, run in a network namespace as a child JVM:
 * {@code publish IFACE GROUP PORT COUNT} or {@code listen IFACE GROUP PORT REQUEST_HOST COUNT}.
 */
public final class MoldNetnsNode {
    private MoldNetnsNode() {
    }

    /**
     * Runs one side.
     *
     * @param args the mode and its arguments
     * @throws IOException if standard input fails
     */
    public static void main(final String[] args) throws IOException {
        final NetworkInterface nif = NetworkInterface.getByName(args[1]);
        final InetAddress group = InetAddress.getByName(args[2]);
        final int port = Integer.parseInt(args[3]);
        try (Reactor reactor = new Reactor(new ReactorOptions().idleStrategy(new YieldingIdleStrategy()))) {
            if ("publish".equals(args[0])) {
                publish(reactor, nif, group, port, Long.parseLong(args[4]));
            } else {
                System.exit(listen(reactor, nif, group, port, InetAddress.getByName(args[4]), Long.parseLong(args[5])));
            }
        }
    }

    private static void publish(final Reactor reactor, final NetworkInterface nif, final InetAddress group, final int port,
        final long count) throws IOException {
        final SplittableRandom random = new SplittableRandom(7);
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("NETNS", 1 << 16, 1 << 24)) {
            final MoldUDP64RequestServer server = new MoldUDP64RequestServer(reactor, store,
                new UdpOptions().localAddress(new InetSocketAddress(port + 1)), MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, 100_000, 1000);
            final MoldUDP64Publisher publisher = new MoldUDP64Publisher(reactor, store, new MoldUDP64PublisherOptions()
                .destination(new InetSocketAddress(group, port)).udp(new UdpOptions().multicastInterface(nif))
                .heartbeatIntervalNs(50_000_000L).endOfSessionRepeats(10)
                .filter((sequence, messages) -> messages == 0 || messages == MoldUDP64Layout.END_OF_SESSION
                    || random.nextDouble() >= 0.1));
            final MemorySegment message = Arena.ofAuto().allocate(24);
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while (System.in.available() == 0 && System.nanoTime() < deadline) {
                for (int i = 0; i < 20 && publisher.nextSequence() <= count; i++) {
                    message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, publisher.nextSequence());
                    publisher.offer(message, 0, 24);
                    if (publisher.nextSequence() > count) {
                        publisher.close();
                    }
                }
                reactor.doWork();
                Thread.onSpinWait();
            }
            System.out.println("publisher answers=" + server.answers() + " dropped=" + publisher.packetsDropped());
        }
    }

    private static int listen(final Reactor reactor, final NetworkInterface nif, final InetAddress group, final int port,
        final InetAddress requestHost, final long count) {
        final long[] state = new long[2]; // next expected, errors
        state[0] = 1;
        final MoldUDP64Subscriber subscriber = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
            .feed(new UdpOptions().localAddress(new InetSocketAddress(port)).reuseAddress(true).receiveBufferSize(1 << 22))
            .group(group, nif).requestServer(new InetSocketAddress(requestHost, port + 1)).startSequence(1)
            .requestTimeoutNs(20_000_000L), (sequence, buffer, offset, length) -> {
                if (sequence != state[0] || buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset) != sequence) {
                    state[1]++;
                }
                state[0] = sequence + 1;
            });
        System.out.println("ready");
        final long deadline = System.nanoTime() + 60_000_000_000L;
        while (subscriber.state() != MoldUDP64SubscriberState.END_OF_SESSION && System.nanoTime() < deadline) {
            reactor.doWork();
            Thread.onSpinWait();
        }
        System.out.println("RESULT delivered=" + subscriber.delivered() + " errors=" + state[1] + " state=" + subscriber.state()
            + " gaps=" + subscriber.gaps() + " recovered=" + subscriber.recovered());
        return subscriber.delivered() == count && state[1] == 0 ? 0 : 1;
    }
}
