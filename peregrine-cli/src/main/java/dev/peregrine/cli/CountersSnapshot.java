package dev.peregrine.cli;

import dev.peregrine.counters.CountersReader;

import java.util.ArrayList;
import java.util.List;

/**
 * One reading of a process's counters.
 *
 * @param pid the owner's process id
 * @param name the owner's main class and arguments
 * @param startMillis when the owner started, epoch milliseconds
 * @param takenNanos when the reading was taken ({@link System#nanoTime()}), for rates
 * @param counters every live counter, in id order
 */
record CountersSnapshot(long pid, String name, long startMillis, long takenNanos, List<Entry> counters) {
    /**
     * One counter.
     *
     * @param id its id
     * @param typeId its type
     * @param label which instance
     * @param value its value
     */
    record Entry(int id, int typeId, String label, long value) {
    }

    static CountersSnapshot read(final CountersReader reader) {
        final List<Entry> entries = new ArrayList<>();
        reader.forEach((id, typeId, label, value) -> entries.add(new Entry(id, typeId, label, value)));
        return new CountersSnapshot(reader.pid(), reader.processName(), reader.processStartMillis(), System.nanoTime(),
            List.copyOf(entries));
    }
}
