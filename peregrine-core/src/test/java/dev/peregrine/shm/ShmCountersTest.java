package dev.peregrine.shm;

import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.EventRecorder;
import dev.peregrine.channel.SendResult;
import dev.peregrine.counters.CounterTypes;
import dev.peregrine.counters.CountersManager;
import dev.peregrine.counters.CountersReader;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shared-memory counters, read from each side's counters file, after a scripted exchange between two reactors
 * driven by hand: the client's ring holds exactly what the server has not read yet.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShmCountersTest {
    /** Past the transport's heartbeat, which publishes the counters. */
    private static final long HEARTBEAT_NS = 100_000_001L;
    private static final int MESSAGES = 5;
    /** 8 header bytes and 40 payload bytes, padded to the default 64-byte record alignment. */
    private static final int PAYLOAD = 40;
    private static final long RECORD = ShmRingDescriptor.CACHE_LINE_ALIGNMENT;

    @TempDir
    Path dir;

    private final long[] now = {1_000_000_000L};
    private final List<Throwable> errors = new ArrayList<>();

    private Reactor reactor(final CountersManager counters) {
        return new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy()).clock(() -> now[0])
            .counters(counters).errorHandler(errors::add));
    }

    @Test
    void shouldCountOccupancyPeersAliveAndNoWakeUpsOfAScriptedExchangeBetweenBusyReactors() {
        final EventRecorder serverEvents = new EventRecorder();
        final EventRecorder clientEvents = new EventRecorder();
        try (CountersManager serverCounters = CountersManager.create(dir.resolve("server.counters"), 64, 0);
             CountersManager clientCounters = CountersManager.create(dir.resolve("client.counters"), 64, 0);
             Reactor serverReactor = reactor(serverCounters);
             Reactor clientReactor = reactor(clientCounters);
             CountersReader serverReader = CountersReader.open(serverCounters.file());
             CountersReader clientReader = CountersReader.open(clientCounters.file())) {
            final ShmOptions options = new ShmOptions().ringCapacity(64 * 1024).maxMessageLength(1024).ringDirectory(dir);
            final ShmTransport server = new ShmTransport(serverReactor, options, serverEvents);
            final ShmTransport client = new ShmTransport(clientReactor, options, clientEvents);
            final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("t.sock"));
            server.listen(address);
            runUntil(() -> count(serverEvents, ChannelEvent.Listening.class) == 1, serverReactor);
            final long channelId = client.connect(address);
            runUntil(() -> count(clientEvents, ChannelEvent.Connected.class) == 1
                && count(serverEvents, ChannelEvent.Accepted.class) == 1, serverReactor, clientReactor);

            final MemorySegment message = Arena.ofAuto().allocate(PAYLOAD);
            for (int i = 0; i < MESSAGES; i++) {
                assertThat(client.send(channelId, message, 0, PAYLOAD)).isNotEqualTo(SendResult.BACK_PRESSURED);
            }
            heartbeat(clientReactor);
            assertThat(shmCounters(clientReader)).isEqualTo(expected(MESSAGES * RECORD, 1));

            runUntil(() -> count(serverEvents, ChannelEvent.Message.class) == MESSAGES, serverReactor);
            heartbeat(clientReactor, serverReactor);
            assertThat(shmCounters(clientReader)).as("the server read every record").isEqualTo(expected(0, 1));
            assertThat(shmCounters(serverReader)).isEqualTo(expected(0, 1));

            final long serverChannelId = serverEvents.events().stream().filter(ChannelEvent.Accepted.class::isInstance)
                .map(ChannelEvent.Accepted.class::cast).findFirst().orElseThrow().channelId();
            server.close(serverChannelId);
            runUntil(() -> count(clientEvents, ChannelEvent.Closed.class) == 1, serverReactor, clientReactor);
            heartbeat(clientReactor, serverReactor);
            assertThat(shmCounters(clientReader)).as("the peer is gone").isEqualTo(expected(0, 0));
            assertThat(shmCounters(serverReader)).isEqualTo(expected(0, 0));
            assertThat(errors).isEmpty();
        }
    }

    private static Map<String, Long> expected(final long occupancy, final long peersAlive) {
        final Map<String, Long> expected = new TreeMap<>();
        expected.put("peregrine_shm_ring_occupancy_bytes", occupancy);
        expected.put("peregrine_shm_peers_alive", peersAlive);
        expected.put("peregrine_shm_wake_ups_total", 0L); // busy reactors: no reader ever sleeps on the futex
        expected.put("peregrine_shm_futex_waits_total", 0L);
        expected.put("peregrine_shm_peer_faults_total", 0L);
        return expected;
    }

    private static Map<String, Long> shmCounters(final CountersReader reader) {
        final Map<String, Long> counters = new TreeMap<>();
        reader.forEach((id, typeId, label, value) -> {
            final String name = CounterTypes.name(typeId);
            if (name.startsWith("peregrine_shm_")) {
                assertThat(counters.put(name, value)).as("one transport a file").isNull();
            }
        });
        return counters;
    }

    private static long count(final EventRecorder recorder, final Class<? extends ChannelEvent> type) {
        return recorder.events().stream().filter(type::isInstance).count();
    }

    private void heartbeat(final Reactor... reactors) {
        now[0] += HEARTBEAT_NS;
        for (final Reactor reactor : reactors) {
            reactor.doWork();
        }
    }

    private static void runUntil(final BooleanSupplier condition, final Reactor... reactors) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition not reached in time").isLessThan(deadline);
            for (final Reactor reactor : reactors) {
                reactor.doWork();
            }
        }
    }
}
