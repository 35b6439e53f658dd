package dev.peregrine.reactor;

import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.EventRecorder;
import dev.peregrine.counters.CountersManager;
import dev.peregrine.mold.MoldUDP64Layout;
import dev.peregrine.mold.MoldUDP64Listener;
import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.mold.MoldUDP64RequestServer;
import dev.peregrine.mold.MoldUDP64Subscriber;
import dev.peregrine.mold.MoldUDP64SubscriberOptions;
import dev.peregrine.shm.ShmOptions;
import dev.peregrine.shm.ShmTransport;
import dev.peregrine.tcp.TcpOptions;
import dev.peregrine.tcp.TcpTransport;
import dev.peregrine.udp.UdpEndpoint;
import dev.peregrine.udp.UdpOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reactor closed before the objects on it were closed takes their counter slots back: an application that closes
 * only the reactor must not leave its transports' slots taken in the (process-wide) counters file until it exits.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReactorReleaseCountersTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @TempDir
    Path dir;

    private final List<Throwable> errors = new CopyOnWriteArrayList<>();

    @Test
    void shouldFreeTcpTransportAndChannelSlotsWhenTheReactorClosesFirst() {
        try (CountersManager counters = CountersManager.inMemory(256, 0)) {
            final Reactor reactor = reactor(counters);
            final int reactorOnly = counters.allocatedCount();
            final EventRecorder recorder = new EventRecorder();
            final TcpTransport transport = new TcpTransport(reactor, new TcpOptions(), recorder);
            final long server = transport.listen(new InetSocketAddress(LOOPBACK, 0));
            pollUntil(reactor, () -> transport.localAddress(server) != null);
            transport.connect(transport.localAddress(server));
            pollUntil(reactor, () -> recorder.events().stream().filter(e -> e instanceof ChannelEvent.Accepted
                || e instanceof ChannelEvent.Connected).count() == 2);
            assertThat(counters.allocatedCount()).as("the transport's and both channels'").isGreaterThan(reactorOnly);

            reactor.close(); // the transport is never closed

            assertThat(counters.allocatedCount()).isEqualTo(0);
        }
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldFreeUdpShmAndMoldSlotsWhenTheReactorClosesFirst() {
        try (CountersManager counters = CountersManager.inMemory(256, 0);
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("RELEASE", 16, 1 << 16)) {
            final Reactor reactor = reactor(counters);
            final int reactorOnly = counters.allocatedCount();
            UdpEndpoint.open(reactor, new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0)),
                (e, b, o, l, s, n) -> { });
            final int udp = counters.allocatedCount();
            new ShmTransport(reactor, new ShmOptions().ringDirectory(dir), new EventRecorder());
            final int shm = counters.allocatedCount();
            final MoldUDP64RequestServer server = new MoldUDP64RequestServer(reactor, store,
                new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0)), MoldUDP64Layout.DEFAULT_MAX_PAYLOAD,
                100, 1);
            final int mold = counters.allocatedCount();
            new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
                .feed(new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0)))
                .requestServer(server.localAddress()).startSequence(1), (MoldUDP64Listener)(sequence, buffer, offset, length) -> { });
            assertThat(List.of(reactorOnly, udp, shm, mold, counters.allocatedCount()))
                .as("each object took slots of its own").doesNotHaveDuplicates().isSorted();

            reactor.close(); // none of them is closed

            assertThat(counters.allocatedCount()).isEqualTo(0);
        }
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldNotRunTheHookOfAnObjectClosedBeforeTheReactor() {
        try (CountersManager counters = CountersManager.inMemory(256, 0)) {
            final Reactor reactor = reactor(counters);
            final int[] runs = new int[2];
            final Runnable kept = () -> runs[0]++;
            final Runnable removed = () -> runs[1]++;
            reactor.addReleaseHook(kept);
            reactor.addReleaseHook(removed);
            reactor.removeReleaseHook(removed);
            reactor.close();
            reactor.addReleaseHook(kept); // added to a released reactor: runs at once
            assertThat(runs).containsExactly(2, 0);
        }
    }

    private Reactor reactor(final CountersManager counters) {
        return new Reactor(new ReactorOptions().counters(counters).errorHandler(errors::add));
    }

    private static void pollUntil(final Reactor reactor, final BooleanSupplier condition) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            reactor.doWork();
            assertThat(System.nanoTime()).as("condition not reached in time").isLessThan(deadline);
        }
    }
}
