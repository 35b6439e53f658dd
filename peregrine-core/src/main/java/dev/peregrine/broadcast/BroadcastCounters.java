package dev.peregrine.broadcast;

import dev.peregrine.counters.Counter;
import dev.peregrine.counters.CounterTypes;
import dev.peregrine.counters.CountersManager;

import java.nio.file.Path;

/**
 * The counters of one broadcast reader or writer, in a counters file that {@code ./peregrine stat} reads: a reader's
 * missed records and laps ({@code DROP}) and its eviction ({@code BLOCK}), a writer's evictions. Labelled
 * {@code broadcast=LOG reader=NAME} or {@code broadcast=LOG writer}. Written on the owner's thread, on rare paths only.
 */
final class BroadcastCounters {
    private final CountersManager manager;
    private final boolean owned;
    private final Counter missed;
    private final Counter laps;
    private final Counter evictions;

    private BroadcastCounters(final CountersManager given, final String label, final boolean reader) {
        this.owned = given == null;
        this.manager = owned ? CountersManager.acquireShared() : given;
        this.missed = reader ? manager.allocate(CounterTypes.BROADCAST_MISSED, label) : null;
        this.laps = reader ? manager.allocate(CounterTypes.BROADCAST_LAPS, label) : null;
        this.evictions = manager.allocate(CounterTypes.BROADCAST_EVICTIONS, label);
    }

    static BroadcastCounters reader(final CountersManager given, final Path log, final String name) {
        return new BroadcastCounters(given, "broadcast=" + logName(log) + " reader=" + name, true);
    }

    static BroadcastCounters writer(final CountersManager given, final Path log) {
        return new BroadcastCounters(given, "broadcast=" + logName(log) + " writer", false);
    }

    private static String logName(final Path log) {
        final String file = log.getFileName().toString();
        return file.endsWith(".bcast") ? file.substring(0, file.length() - ".bcast".length()) : file;
    }

    /** A reader was lapped and missed this many records. */
    void lapped(final long lost) {
        missed.add(lost);
        laps.increment();
    }

    /** A writer evicted a reader, or a reader found itself evicted. */
    void evicted() {
        evictions.increment();
    }

    /** Frees the counters' slots, and this use of the process-wide manager if it took one. */
    void close() {
        if (missed != null) {
            missed.close();
            laps.close();
        }
        evictions.close();
        if (owned) {
            manager.close();
        }
    }
}
