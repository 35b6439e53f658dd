package dev.peregrine.examples.mold;

import dev.peregrine.mold.MoldUDP64GapReason;
import dev.peregrine.mold.MoldUDP64Listener;
import dev.peregrine.mold.MoldUDP64Subscriber;
import dev.peregrine.mold.MoldUDP64SubscriberOptions;
import dev.peregrine.mold.MoldUDP64SubscriberState;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.reactor.YieldingIdleStrategy;
import dev.peregrine.udp.UdpOptions;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.ByteOrder;

/**
 * A MoldUDP64 listener on the command line: follows a feed, recovers gaps from the re-request server,
 * checks that messages arrive in order, and prints state changes at once and counters once a second.
 *
 * @param group the multicast group to join, or null for a unicast feed
 * @param port the feed's port
 * @param networkInterface where to join the group
 * @param requestServer the re-request server
 * @param startSequence 0 for the next message, 1 for the whole session, or a sequence number
 * @param seconds how long to run, 0 for no limit
 * @param recovery where each gap's recovery latency goes and what the counters line says of them, or null
 * @param answersOnlyFromRequestServer whether answers are taken from the request server's address and port only
 *     ({@link MoldUDP64SubscriberOptions#acceptAnswersOnlyFromRequestServer})
 * @param sink receives every message delivered, or null
 */
public record MoldListenerApp(InetAddress group, int port, NetworkInterface networkInterface, InetSocketAddress requestServer,
    long startSequence, int seconds, RecoveryLatencies recovery, boolean answersOnlyFromRequestServer, MessageSink sink) {

    /**
     * A listener without a sink for its messages.
     *
     * @param group the multicast group to join, or null for a unicast feed
     * @param port the feed's port
     * @param networkInterface where to join the group
     * @param requestServer the re-request server
     * @param startSequence 0 for the next message, 1 for the whole session, or a sequence number
     * @param seconds how long to run, 0 for no limit
     * @param recovery where each gap's recovery latency goes, or null
     * @param answersOnlyFromRequestServer whether answers are taken from the request server only
     */
    public MoldListenerApp(final InetAddress group, final int port, final NetworkInterface networkInterface,
        final InetSocketAddress requestServer, final long startSequence, final int seconds, final RecoveryLatencies recovery,
        final boolean answersOnlyFromRequestServer) {
        this(group, port, networkInterface, requestServer, startSequence, seconds, recovery, answersOnlyFromRequestServer,
            null);
    }

    /**
     * Receives every message the listener delivers, recovered and in order (e.g. to republish it on this host).
     */
    @FunctionalInterface
    public interface MessageSink {
        /**
         * One message, on the listener's thread; the view is valid during the call only.
         *
         * @param sequence its MoldUDP64 sequence number
         * @param buffer the bytes
         * @param offset where it starts
         * @param length its length
         */
        void onMessage(long sequence, MemorySegment buffer, long offset, int length);
    }

    /**
     * A listener that takes answers from any sender, as by default.
     *
     * @param group the multicast group to join, or null for a unicast feed
     * @param port the feed's port
     * @param networkInterface where to join the group
     * @param requestServer the re-request server
     * @param startSequence 0 for the next message, 1 for the whole session, or a sequence number
     * @param seconds how long to run, 0 for no limit
     * @param recovery where each gap's recovery latency goes and what the counters line says of them, or null
     */
    public MoldListenerApp(final InetAddress group, final int port, final NetworkInterface networkInterface,
        final InetSocketAddress requestServer, final long startSequence, final int seconds, final RecoveryLatencies recovery) {
        this(group, port, networkInterface, requestServer, startSequence, seconds, recovery, false, null);
    }

    /**
     * A listener without recovery latencies on its counters line.
     *
     * @param group the multicast group to join, or null for a unicast feed
     * @param port the feed's port
     * @param networkInterface where to join the group
     * @param requestServer the re-request server
     * @param startSequence 0 for the next message, 1 for the whole session, or a sequence number
     * @param seconds how long to run, 0 for no limit
     */
    public MoldListenerApp(final InetAddress group, final int port, final NetworkInterface networkInterface,
        final InetSocketAddress requestServer, final long startSequence, final int seconds) {
        this(group, port, networkInterface, requestServer, startSequence, seconds, null, false, null);
    }

    /**
     * Collects recovery latencies (e.g. in an HdrHistogram, which this example does not depend on) and
     * summarises them on each counters line; called on the listener's thread.
     */
    public interface RecoveryLatencies {
        /**
         * One gap filled ({@link MoldUDP64Listener#onGapFilled}).
         *
         * @param nanos from its detection to its last message
         */
        void record(long nanos);

        /**
         * The text appended to a counters line, e.g. {@code recovery p50=.. p99=..}.
         *
         * @return the text
         */
        String line();
    }

    /**
     * Runs for the given time, or until the session ends, or until the thread is interrupted.
     *
     * @param out where the report goes
     * @return messages delivered out of order or corrupt (0 when all is well)
     */
    public long run(final PrintStream out) {
        final long[] problems = new long[1];
        final long[] lastSequence = new long[1];
        final MoldUDP64Listener listener = new MoldUDP64Listener() {
            @Override
            public void onMessage(final long sequence, final MemorySegment buffer, final long offset, final int length) {
                if (lastSequence[0] != 0 && sequence != lastSequence[0] + 1
                    || length >= 8 && buffer.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), offset) != sequence) {
                    problems[0]++;
                }
                lastSequence[0] = sequence;
                if (sink != null) {
                    sink.onMessage(sequence, buffer, offset, length);
                }
            }

            @Override
            public void onStateChange(final MoldUDP64SubscriberState state, final long nextExpected) {
                out.printf("state %s at sequence %d%n", state, nextExpected);
            }

            @Override
            public void onGapFilled(final long fromSequence, final long count, final long nanos) {
                if (recovery != null) {
                    recovery.record(nanos);
                }
            }

            @Override
            public void onUnrecoverable(final long fromSequence, final long count, final MoldUDP64GapReason reason) {
                out.printf("gap of %d messages from %d cannot be recovered: %s%n", count, fromSequence, reason);
                problems[0]++;
            }
        };
        try (Reactor reactor = new Reactor(new ReactorOptions().name("mold-listener").idleStrategy(new YieldingIdleStrategy()))) {
            // each socket bound to the wildcard of its peer's family: the feed's port here (MoldPublisherApp.anyAddress),
            // the group's family or, for a unicast feed, the request server's, the publisher's own address; the request
            // socket's by the subscriber, from the request server
            final MoldUDP64Subscriber subscriber = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
                .feed(new UdpOptions().localAddress(MoldPublisherApp.anyAddress(group != null ? group
                    : requestServer.getAddress(), port)).reuseAddress(true).receiveBufferSize(4 << 20))
                .request(new UdpOptions().receiveBufferSize(MoldUDP64SubscriberOptions.DEFAULT_REQUEST_RECEIVE_BUFFER))
                .group(group, networkInterface).requestServer(requestServer).startSequence(startSequence)
                .acceptAnswersOnlyFromRequestServer(answersOnlyFromRequestServer).requestTimeoutNs(50_000_000L), listener);
            out.printf("listening on port %d%s, re-requests to %s%s%n", port, group == null ? "" : " group " + group.getHostAddress()
                + " on " + networkInterface.getName(), requestServer, answersOnlyFromRequestServer ? ", answers from it only" : "");
            final long endNs = seconds == 0 ? Long.MAX_VALUE : System.nanoTime() + seconds * 1_000_000_000L;
            long nextReportNs = System.nanoTime() + 1_000_000_000L;
            long lastDelivered = 0;
            while (!Thread.currentThread().isInterrupted() && System.nanoTime() < endNs) {
                reactor.doWork();
                final long nowNs = System.nanoTime();
                if (nowNs >= nextReportNs) {
                    nextReportNs += 1_000_000_000L;
                    out.printf("%-12s session=%s next=%d delivered=%d (+%d/s) gaps=%d open=%d requests=%d inFlight=%d retries=%d "
                        + "recovered=%d duplicates=%d reorderBuffer=%d/%d bytes (peak %d) overflows=%d malformed=%d otherSession=%d "
                        + "strangers=%d outOfOrder=%d%s%n", subscriber.state(), subscriber.session(),
                        subscriber.nextExpected(), subscriber.delivered(), subscriber.delivered() - lastDelivered, subscriber.gaps(),
                        subscriber.openGaps(), subscriber.requests(), subscriber.requestsInFlight(), subscriber.retries(),
                        subscriber.recovered(), subscriber.duplicates(), subscriber.reorderBufferBytesUsed(),
                        subscriber.reorderBufferCapacity(), subscriber.reorderBufferBytesPeak(), subscriber.bufferOverflows(),
                        subscriber.malformed(), subscriber.otherSession(), subscriber.answersFromStrangers(), problems[0],
                        recovery == null ? "" : " " + recovery.line());
                    lastDelivered = subscriber.delivered();
                    if (subscriber.state() == MoldUDP64SubscriberState.END_OF_SESSION
                        || subscriber.state() == MoldUDP64SubscriberState.UNRECOVERABLE
                        || subscriber.state() == MoldUDP64SubscriberState.FAILED) {
                        break;
                    }
                }
                Thread.onSpinWait();
            }
            return problems[0];
        }
    }
}
