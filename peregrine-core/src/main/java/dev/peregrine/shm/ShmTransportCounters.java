package dev.peregrine.shm;

import dev.peregrine.counters.Counter;
import dev.peregrine.counters.CounterTypes;
import dev.peregrine.counters.CountersManager;

import java.util.concurrent.atomic.AtomicInteger;

/** The counters of one {@link ShmTransport}, published with its heartbeat; written on the reactor thread. */
final class ShmTransportCounters {
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final Counter occupancy;
    private final Counter wakeUps;
    private final Counter futexWaits;
    private final Counter peersAlive;
    private final Counter peerFaults;
    private long retiredWakeUps;
    private long retiredFutexWaits;

    ShmTransportCounters(final CountersManager manager) {
        final String label = "transport=shm-" + INSTANCES.incrementAndGet();
        this.occupancy = manager.allocate(CounterTypes.SHM_RING_OCCUPANCY, label);
        this.wakeUps = manager.allocate(CounterTypes.SHM_WAKE_UPS, label);
        this.futexWaits = manager.allocate(CounterTypes.SHM_FUTEX_WAITS, label);
        this.peersAlive = manager.allocate(CounterTypes.SHM_PEERS_ALIVE, label);
        this.peerFaults = manager.allocate(CounterTypes.SHM_PEER_FAULTS, label);
    }

    /** A channel was closed for its peer's fault; counted at once, not with the heartbeat (it is rare). */
    void peerFault() {
        peerFaults.increment();
    }

    long peerFaults() {
        return peerFaults.get();
    }

    /** Keeps the counts of a channel that is going away, so the totals never go down. */
    void retire(final ShmConnection connection) {
        retiredWakeUps += connection.writer().wakeUps();
        retiredFutexWaits += connection.reader().futexWaits();
    }

    void publish(final ShmTransportChannel[] channels) {
        long bytes = 0;
        long wakes = retiredWakeUps;
        long waits = retiredFutexWaits;
        int alive = 0;
        for (final ShmTransportChannel channel : channels) {
            if (channel.state == ShmTransportChannel.CONNECTED) {
                final ShmConnection connection = channel.connection;
                bytes += connection.writer().bytesInFlight();
                wakes += connection.writer().wakeUps();
                waits += connection.reader().futexWaits();
                alive++;
            }
        }
        occupancy.set(bytes);
        wakeUps.set(wakes);
        futexWaits.set(waits);
        peersAlive.set(alive);
    }

    void close() {
        occupancy.close();
        wakeUps.close();
        futexWaits.close();
        peersAlive.close();
        peerFaults.close();
    }
}
