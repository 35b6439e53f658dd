package dev.peregrine.bench.stat;

import dev.peregrine.counters.CounterTypes;
import dev.peregrine.counters.CountersDirectory;
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
     * Reads a process's counters from its file, leaving out the reactor's (they describe the process, not the run)
     * and the zeros.
     *
     * @param pid the process, e.g. the responder's JVM
     * @return the counters in the file's order, or null if the process has no counters file (counters off, or not a
     *     Peregrine process)
     */
    public static List<RunCounter> read(final long pid) {
        final Path file = CountersDirectory.fileOf(CountersDirectory.configuredDirectory(), pid);
        if (file == null || !Files.isRegularFile(file)) {
            return null;
        }
        final List<RunCounter> counters = new ArrayList<>();
        try (CountersReader reader = CountersReader.open(file)) {
            reader.forEach((id, typeId, label, value) -> {
                final String type = CounterTypes.name(typeId);
                if (value != 0 && !type.startsWith("peregrine_reactor_")) {
                    counters.add(new RunCounter(type, label, value));
                }
            });
        } catch (final RuntimeException ex) {
            return null; // removed or unreadable: the run's numbers stand without it
        }
        return List.copyOf(counters);
    }
}
