package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.counters.CountersManager;
import dev.peregrine.counters.CountersReader;
import dev.peregrine.internal.jfr.FlightRecording;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.testkit.AllocationMeter;
import dev.peregrine.testkit.FileDescriptors;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The send and receive paths allocate nothing once warm, in any window (zero tolerance: one object in 200 000
 * round trips fails): a client and an echoing server on one reactor driven by the test thread, so the thread
 * whose allocation is measured is the reactor thread.
 *
 * <p>Every test waits for the JIT rather than trust a fixed warm-up: sets of ten windows are
 * measured until one whole set allocates nothing, at most {@link #MAX_SETS}
 * ({@link AllocationMeter#firstCleanSet}). What the earlier sets may show is a JIT event, traced in
 * docs/proof-notes.md: with {@code -XX:-UseTLAB} and JFR's ObjectAllocationOutsideTLAB over 40 000 warm batches,
 * nothing in the transport's code allocated; with polled reads, three {@code String} and three {@code byte[]}
 * (24-56 B each) appeared at a line of the compiled {@code TimerWheel.poll} that allocates nothing in its source,
 * the pattern of a deoptimisation re-allocating objects escape analysis had removed. The bound: an allocation at
 * least once per set (20 000 batches, 200 000 round trips) fails, and so does any allocation while no set of
 * {@link #MAX_SETS} is clean.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS) // up to five sets after the warm-up, on a loaded machine
class TcpAllocationTest {
    private static final int SIZE = 256;
    /** Sets of windows measured, at most, until one allocates nothing at all: see the class comment. */
    private static final int MAX_SETS = 5;

    /** Echoes on the server side, counts echoes on the client side; allocation-free itself. */
    private static final class EchoPair implements ChannelHandler {
        TcpTransport transport;
        long serverSide = -1;
        long clientSide = -1;
        long echoes;
        long lastSequence = -1;

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
            if (channelId == serverSide) {
                if (transport.send(serverSide, buffer, offset, length) < 0) {
                    throw new IllegalStateException("echo refused");
                }
            } else {
                lastSequence = buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
                echoes++;
            }
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldAllocateNothingPerMessageOnTheReactorThreadOnceWarm(final boolean readPolling) {
        warmRoundTripsAllocateNothing(readPolling, new ReactorOptions());
    }

    /**
     * With a flight recording of every Peregrine event running, nothing rare happens in a steady echo and
     * nothing is allocated either: each event's check is a read, and only an event that happens makes an
     * object. The long-cycle threshold is far beyond any cycle here, so its check runs and never fires.
     */
    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldAllocateNothingPerMessageWhileAFlightRecordingOfPeregrineEventsRuns(final boolean readPolling) {
        try (FlightRecording recording = new FlightRecording()) {
            warmRoundTripsAllocateNothing(readPolling, new ReactorOptions().longCycleThresholdNs(TimeUnit.SECONDS.toNanos(30)));
            assertThat(recording.named("BackPressure")).isEmpty();
            assertThat(recording.named("FrameRejected")).isEmpty();
        }
    }

    @SuppressWarnings("try") // the held descriptors are only held
    private static void warmRoundTripsAllocateNothing(final boolean readPolling, final ReactorOptions options) {
        final List<Throwable> errors = new ArrayList<>();
        final EchoPair pair = new EchoPair();
        // polling reads pair with a selector consulted only every 8th cycle, as a busy-spinning user would set it. The
        // sockets get descriptors above 256, as a server's do: the JDK's selector boxes each ready one, and allocates
        // per ready channel unless the JVM's Integer cache covers it (SelectorBoxing; the test JVM has its option)
        try (FileDescriptors.Held low = FileDescriptors.holdBelow(256);
             Reactor reactor = new Reactor(options.errorHandler(errors::add).selectInterval(readPolling ? 8 : 1))) {
            final TcpTransport transport = new TcpTransport(reactor,
                new TcpOptions().readPolling(readPolling).framing(Framing.parse("length:4le")), pair);
            pair.transport = transport;
            connectPair(reactor, transport, pair);
            final MemorySegment message = Arena.ofAuto().allocate(SIZE);
            final long[] sequence = {0};
            final Runnable roundTrip = () -> {
                final long expected = ++sequence[0];
                if ((expected & 1) == 0) {
                    message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, expected);
                    transport.send(pair.clientSide, message, 0, SIZE);
                } else {
                    final long offset = transport.tryClaim(pair.clientSide, SIZE);
                    transport.claimBuffer().set(ValueLayout.JAVA_LONG_UNALIGNED, offset, expected);
                    transport.commit();
                }
                while (pair.lastSequence != expected) {
                    reactor.doWork();
                }
            };

            final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(30_000, 20_000, 10, MAX_SETS, roundTrip);
            assertThat(pair.echoes).isEqualTo(sequence[0]);
            assertThat(measured.totalBytes()).as("bytes in the last set of %d (10 windows of 20 000 warm round trips)",
                measured.sets()).isZero();
            assertThat(errors).isEmpty();
            transport.close();
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldAllocateNothingForBatchesOfSendsBetweenCyclesOnceWarm(final boolean readPolling) {
        final List<Throwable> errors = new ArrayList<>();
        final EchoPair pair = new EchoPair();
        try (Reactor reactor = new Reactor(new ReactorOptions().errorHandler(errors::add))) {
            final TcpTransport transport = new TcpTransport(reactor,
                new TcpOptions().readPolling(readPolling).framing(Framing.parse("length:4le")), pair);
            pair.transport = transport;
            connectPair(reactor, transport, pair);
            final MemorySegment message = Arena.ofAuto().allocate(SIZE);
            final long[] sequence = {0};
            final Runnable batch = () -> { // sixteen sends between two cycles: written together, echoed together
                for (int i = 0; i < 8; i++) {
                    final long expected = ++sequence[0];
                    if ((expected & 1) == 0) {
                        message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, expected);
                        transport.send(pair.clientSide, message, 0, SIZE);
                    } else {
                        final long offset = transport.tryClaim(pair.clientSide, SIZE);
                        transport.claimBuffer().set(ValueLayout.JAVA_LONG_UNALIGNED, offset, expected);
                        transport.commit();
                    }
                }
                final long run = transport.tryClaim(pair.clientSide, SIZE, 8); // and a claimed run of eight
                final int stride = transport.claimStride();
                for (int i = 0; i < 8; i++) {
                    transport.claimBuffer().set(ValueLayout.JAVA_LONG_UNALIGNED, run + (long)i * stride, ++sequence[0]);
                }
                transport.commit();
                while (pair.lastSequence != sequence[0]) {
                    reactor.doWork();
                }
            };

            // Zero tolerance once the JIT has settled (see the class comment): sets of ten windows until one is clean.
            final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(3_000, 2_000, 10, MAX_SETS, batch);
            assertThat(pair.echoes).isEqualTo(sequence[0]);
            assertThat(measured.totalBytes()).as("bytes in the last of %d sets of ten windows of 2 000 warm batches of 16"
                + " (8 sends or claims, a run of 8)", measured.sets()).isZero();
            assertThat(errors).isEmpty();
            transport.close();
        }
    }

    /** Listens on loopback, connects to itself and waits until the pair knows both of its channels. */
    private static void connectPair(final Reactor reactor, final TcpTransport transport, final EchoPair pair) {
        final long serverId = transport.listen(TcpTestRig.ANY_LOOPBACK_PORT);
        spin(reactor, () -> transport.localAddress(serverId) != null);
        transport.connect(transport.localAddress(serverId));
        spin(reactor, () -> pair.clientSide > 0 && pair.serverSide > 0);
    }

    private static void spin(final Reactor reactor, final java.util.function.BooleanSupplier condition) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            reactor.doWork();
            assertThat(System.nanoTime()).isLessThan(deadline);
        }
    }

    @Test
    void shouldAllocateNothingPerRoundTripWithCountersInAFile(@TempDir final Path dir) {
        final List<Throwable> errors = new ArrayList<>();
        final EchoPair pair = new EchoPair();
        try (CountersManager counters = CountersManager.create(dir.resolve("alloc.counters"), 256, 0);
             Reactor reactor = new Reactor(new ReactorOptions().errorHandler(errors::add).counters(counters));
             CountersReader reader = CountersReader.open(counters.file())) {
            final TcpTransport transport = new TcpTransport(reactor, new TcpOptions().framing(Framing.parse("length:4le")), pair);
            pair.transport = transport;
            connectPair(reactor, transport, pair);
            final MemorySegment message = Arena.ofAuto().allocate(SIZE);
            final long[] sequence = {0};
            final Runnable roundTrip = () -> {
                final long expected = ++sequence[0];
                message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, expected);
                transport.send(pair.clientSide, message, 0, SIZE);
                while (pair.lastSequence != expected) {
                    reactor.doWork();
                }
            };
            final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(30_000, 20_000, 10, MAX_SETS, roundTrip);
            assertThat(measured.totalBytes()).as("bytes in the last of %d sets of ten windows of 20 000 warm round trips,"
                + " counters on", measured.sets()).isZero();
            assertThat(TcpCountersTest.tcpCounters(reader)).containsEntry("peregrine_tcp_messages_in_total{t}", 2 * sequence[0])
                .containsEntry("peregrine_tcp_messages_out_total{t}", 2 * sequence[0]);
            assertThat(errors).isEmpty();
            transport.close();
        }
    }
}
