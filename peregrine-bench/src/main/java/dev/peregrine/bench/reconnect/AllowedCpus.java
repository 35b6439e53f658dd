package dev.peregrine.bench.reconnect;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The CPUs the kernel lets a thread run on: the {@code Cpus_allowed_list} line of {@code /proc/thread-self/status},
 * read by that thread. {@code bench reconnect} prints it for both reactor threads, so that a run says whether its
 * reactors were pinned ({@code --cpu}) and where, as the kernel saw it rather than as asked. Read once, after a
 * run, off the measured path.
 */
final class AllowedCpus {
    private static final Path STATUS = Path.of("/proc/thread-self/status");
    private static final String KEY = "Cpus_allowed_list:";

    private AllowedCpus() {
    }

    /**
     * The calling thread's allowed CPUs, as the kernel lists them (for example {@code 0-1} or {@code 1}).
     *
     * @return the list, or {@code unknown (why)} where the file cannot be read (not Linux)
     */
    static String ofThisThread() {
        try {
            for (final String line : Files.readAllLines(STATUS)) {
                if (line.startsWith(KEY)) {
                    return line.substring(KEY.length()).strip();
                }
            }
            return "unknown (no " + KEY + " line in " + STATUS + ")";
        } catch (final IOException | RuntimeException ex) {
            return "unknown (" + STATUS + ": " + ex.getMessage() + ")";
        }
    }

    /**
     * The report's line.
     *
     * @param spec the run's spec (its pinning)
     * @param server the server reactor thread's list, null if it was not read
     * @param client the client reactor thread's list, null if it was not read
     * @return the line
     */
    static String line(final ReconnectRunner.Spec spec, final String server, final String client) {
        return String.format(Locale.ROOT, "  reactor threads may run on CPUs (the kernel's Cpus_allowed_list): server %s,"
            + " client %s (%s)", server == null ? "not read" : server, client == null ? "not read" : client,
            !spec.pinned() ? "not pinned" : "pinned by --cpu " + spec.clientCpu()
                + (spec.serverCpu() < 0 ? "" : "," + spec.serverCpu()));
    }
}
