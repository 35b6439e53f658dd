package dev.peregrine.bench.stat;

import dev.peregrine.counters.CounterTypes;
import dev.peregrine.counters.CountersDirectory;
import dev.peregrine.counters.CountersManager;
import dev.peregrine.counters.CountersReader;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The Peregrine counters of a benchmark's process at the end of a run, for the run's JSON: the back-pressure
 * events, rejections, drops and recoveries that explain a result.
 */
public final class RunCounters {
    private RunCounters() {
    }

    /**
     * Reads a process's counters from its file, as a JSON array of
     * {@code {"type":"peregrine_tcp_bytes_in_total","label":"transport=tcp-1","value":123}} objects, leaving out the
     * reactor's (they describe the process, not the run) and the zeros.
     *
     * @param pid the process, e.g. the responder's JVM
     * @return the array, or null if the process has no counters file (counters off, or not a Peregrine process)
     */
    public static String json(final long pid) {
        final Path file = CountersDirectory.configuredDirectory().resolve(pid + CountersManager.FILE_SUFFIX);
        if (!Files.isRegularFile(file)) {
            return null;
        }
        final List<CountersSnapshot.Entry> entries;
        try (CountersReader reader = CountersReader.open(file)) {
            entries = CountersSnapshot.read(reader).counters();
        } catch (final RuntimeException ex) {
            return null; // removed or unreadable: the run's numbers stand without it
        }
        final List<CountersSnapshot.Entry> explaining = new ArrayList<>();
        for (final CountersSnapshot.Entry entry : entries) {
            if (entry.value() != 0 && !CounterTypes.name(entry.typeId()).startsWith("peregrine_reactor_")) {
                explaining.add(entry);
            }
        }
        return StatFormats.jsonArray(explaining);
    }
}
