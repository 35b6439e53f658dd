package dev.peregrine.udp;

import dev.peregrine.counters.CountersManager;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.testkit.FileDescriptors;

import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The child process of {@link UdpOpenFailureTest}: run with a direct-memory limit too small for an endpoint's
 * buffers, it opens native endpoints that fail with {@link OutOfMemoryError} and prints how many failed and how many
 * descriptors were left open meanwhile.
 */
final class UdpOpenOutOfDirectMemory {
    private UdpOpenOutOfDirectMemory() {
    }

    /**
     * Opens the endpoints, with {@link UdpOptions#nativeSocket}.
     *
     * @param args none
     */
    public static void main(final String[] args) {
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        final UdpOptions options = new UdpOptions().localAddress(new InetSocketAddress(loopback, 0))
            .remoteAddress(new InetSocketAddress(loopback, 9)).busyPoll(true).connectedReadWrite(true)
            .nativeSocket(true);
        try (CountersManager counters = CountersManager.inMemory(64, 0);
             Reactor reactor = new Reactor(new ReactorOptions().counters(counters))) {
            attempt(reactor, options); // warm up: classes, the JDK's own descriptors
            final long before = FileDescriptors.open();
            int failures = 0;
            for (int i = 0; i < 3; i++) {
                failures += attempt(reactor, options);
            }
            final long leaked = FileDescriptors.open() - before;
            System.out.println("failures=" + failures + " leaked=" + leaked);
        }
    }

    private static int attempt(final Reactor reactor, final UdpOptions options) {
        try {
            UdpEndpoint.open(reactor, options, (endpoint, buffer, offset, length, sender, nowNs) -> { }).close();
            return 0;
        } catch (final OutOfMemoryError expected) {
            return 1;
        }
    }
}
