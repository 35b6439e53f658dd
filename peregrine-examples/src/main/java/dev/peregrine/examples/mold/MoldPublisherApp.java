package dev.peregrine.examples.mold;

import dev.peregrine.mold.MoldUDP64Layout;
import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.mold.MoldUDP64Publisher;
import dev.peregrine.mold.MoldUDP64PublisherOptions;
import dev.peregrine.mold.MoldUDP64RequestServer;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.reactor.YieldingIdleStrategy;
import dev.peregrine.udp.UdpOptions;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * A MoldUDP64 feed on the command line: publishes numbered messages at a steady rate to a multicast
 * group (or a unicast address), drops a share of its data packets on purpose so that listeners have
 * something to recover, serves re-requests, and prints its counters once a second.
 *
 * @param group where packets go: a multicast group or a unicast address
 * @param port the feed's port
 * @param networkInterface the multicast interface, e.g. {@code lo}
 * @param requestPort where the re-request server listens
 * @param session the session name
 * @param rate messages per second
 * @param loss share of data packets dropped before sending, 0 to 1
 * @param size message length in bytes, at least 8 (the sequence number, big-endian, comes first)
 * @param count messages to publish, 0 for no limit
 * @param storeFile a file for the message store, or null for memory
 * @param lingerNs with a count: how long the request server goes on answering after End of Session, which is repeated
 *     every {@link #END_OF_SESSION_INTERVAL_NS} meanwhile
 */
public record MoldPublisherApp(InetAddress group, int port, NetworkInterface networkInterface, int requestPort, String session,
    int rate, double loss, int size, long count, Path storeFile, long lingerNs) {
    /**
     * How often End of Session is repeated while the request server lingers: a listener that asks again only when a
     * packet arrives (Nassau's) gets one at least this often, so it keeps recovering after the feed has ended.
     */
    public static final long END_OF_SESSION_INTERVAL_NS = 100_000_000L;
    /** The linger of the constructor without one: about the time the publisher's three End of Session packets took. */
    public static final long DEFAULT_LINGER_NS = 2_000_000_000L;
    /** The IPv6 wildcard address, {@code ::}. */
    private static final InetAddress IPV6_ANY = ipv6Any();

    /**
     * A publisher whose request server lingers {@link #DEFAULT_LINGER_NS} after End of Session.
     *
     * @param group where packets go: a multicast group or a unicast address
     * @param port the feed's port
     * @param networkInterface the multicast interface, e.g. {@code lo}
     * @param requestPort where the re-request server listens
     * @param session the session name
     * @param rate messages per second
     * @param loss share of data packets dropped before sending, 0 to 1
     * @param size message length in bytes, at least 8
     * @param count messages to publish, 0 for no limit
     * @param storeFile a file for the message store, or null for memory
     */
    public MoldPublisherApp(final InetAddress group, final int port, final NetworkInterface networkInterface,
        final int requestPort, final String session, final int rate, final double loss, final int size, final long count,
        final Path storeFile) {
        this(group, port, networkInterface, requestPort, session, rate, loss, size, count, storeFile, DEFAULT_LINGER_NS);
    }

    /**
     * Runs until {@code count} messages are out (then ends the session) or the thread is interrupted.
     *
     * @param out where the once-a-second report goes
     */
    public void run(final PrintStream out) {
        if (rate < 1 || loss < 0 || loss >= 1 || size < 8 || size > MoldUDP64Layout.DEFAULT_MAX_PAYLOAD - 2 || lingerNs < 0) {
            throw new IllegalArgumentException("rate=" + rate + " loss=" + loss + " size=" + size + " (8 to 1450) lingerNs="
                + lingerNs);
        }
        // End of Session goes out once, then every interval until the linger is over; the server answers until then
        final int endOfSessionRepeats = (int)Math.min(Integer.MAX_VALUE, 1 + lingerNs / END_OF_SESSION_INTERVAL_NS);
        final SplittableRandom random = new SplittableRandom(42);
        final long[] dropped = new long[1];
        // left unbound: the publisher binds the wildcard of its destination's family (a socket of the other cannot reach it)
        final UdpOptions udp = new UdpOptions().multicastLoopback(true).multicastInterface(networkInterface);
        try (Reactor reactor = new Reactor(new ReactorOptions().name("mold-publisher").idleStrategy(new YieldingIdleStrategy()));
             MoldUDP64MessageStore store = storeFile == null ? MoldUDP64MessageStore.inMemory(session, 1 << 20, 256L << 20)
                 : MoldUDP64MessageStore.mapped(storeFile, session, 1 << 20, 256L << 20)) {
            final MoldUDP64RequestServer server = new MoldUDP64RequestServer(reactor, store,
                new UdpOptions().localAddress(anyAddress(group, requestPort)), MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, 10_000, 100);
            final MoldUDP64Publisher publisher = new MoldUDP64Publisher(reactor, store, new MoldUDP64PublisherOptions()
                .destination(new InetSocketAddress(group, port)).udp(udp)
                .heartbeatIntervalNs(count == 0 ? 1_000_000_000L : END_OF_SESSION_INTERVAL_NS)
                .endOfSessionRepeats(endOfSessionRepeats)
                .filter((sequence, messages) -> {
                    final boolean drop = messages != 0 && messages != MoldUDP64Layout.END_OF_SESSION && random.nextDouble() < loss;
                    dropped[0] += drop ? 1 : 0;
                    return !drop;
                }));
            out.printf("publishing session %s to %s:%d via %s at %d msg/s, %.0f%% of packets dropped on purpose; re-requests on port %d%n",
                session, group.getHostAddress(), port, networkInterface == null ? "default" : networkInterface.getName(), rate,
                loss * 100, server.localAddress().getPort());
            final MemorySegment message = Arena.ofAuto().allocate(size);
            final long startNs = System.nanoTime();
            long nextReportNs = startNs + 1_000_000_000L;
            long published = 0;
            boolean ended = false;
            while (!Thread.currentThread().isInterrupted() && !publisher.isDone()) {
                final long nowNs = System.nanoTime();
                final long due = Math.min((nowNs - startNs) * rate / 1_000_000_000L, count == 0 ? Long.MAX_VALUE : count);
                while (published < due) {
                    message.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 0, publisher.nextSequence());
                    publisher.offer(message, 0, size);
                    published++;
                }
                if (count != 0 && published == count && !ended) {
                    ended = true;
                    publisher.close();
                    out.printf("end of session after %d messages; re-requests answered for %.1f s more, End of Session"
                        + " repeated every %d ms meanwhile%n", published, lingerNs / 1e9, END_OF_SESSION_INTERVAL_NS / 1_000_000);
                }
                reactor.doWork();
                if (nowNs >= nextReportNs) {
                    nextReportNs += 1_000_000_000L;
                    out.printf("published=%d packets=%d dropped=%d heartbeats=%d requests=%d answers=%d deferred=%d"
                        + " rateLimited=%d%n", published, publisher.packetsSent(), dropped[0], publisher.heartbeatsSent(),
                        server.requests(), server.answers(), server.deferred(), server.rateLimited());
                }
                Thread.onSpinWait();
            }
            out.printf("session %s ended after %d messages%n", session, published);
        }
    }

    /**
     * Every address of this machine in the family of {@code peer}, with a port: an IPv4 socket can neither send to
     * nor hear from an IPv6 address, so a feed, a request server or a request socket for an IPv6 peer binds
     * {@code ::} (which on Linux hears IPv4 too), and for any other peer the IPv4 wildcard, as it always did.
     *
     * @param peer the address the socket talks to, or null for none
     * @param port the port, 0 for any
     * @return the wildcard address and port
     */
    static InetSocketAddress anyAddress(final InetAddress peer, final int port) {
        return peer instanceof Inet6Address ? new InetSocketAddress(IPV6_ANY, port) : new InetSocketAddress(port);
    }

    private static InetAddress ipv6Any() {
        try {
            return InetAddress.getByAddress(new byte[16]);
        } catch (final java.net.UnknownHostException ex) {
            throw new IllegalStateException("16 bytes are an IPv6 address", ex);
        }
    }
}
