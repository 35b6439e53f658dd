package dev.peregrine.testkit;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Counts this process's open file descriptors, for the tests that fail many times and check nothing leaked, and holds
 * the low ones, so that the sockets a test opens next get descriptors a real server has: above the JVM's Integer
 * cache, where the JDK's selector boxes each ready descriptor ({@code dev.peregrine.reactor.SelectorBoxing}).
 */
public final class FileDescriptors {
    private FileDescriptors() {
    }

    /**
     * The descriptors open now (Linux: the entries of {@code /proc/self/fd}, the listing's own included).
     *
     * @return the count
     */
    public static long open() {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot list /proc/self/fd", ex);
        }
    }

    /**
     * Opens {@code /dev/null} until {@code count} descriptors are open, so that every descriptor below {@code count}
     * is taken and the next one opened is at least {@code count} (the kernel hands out the lowest free one).
     *
     * @param count the descriptors to have open, e.g. 256: above the JVM's default Integer cache of 127
     * @return the held descriptors; closing it closes them
     */
    public static Held holdBelow(final int count) {
        final List<FileInputStream> held = new ArrayList<>();
        // each open takes one descriptor, the lowest free: one listing says how many to open (its own is counted)
        final long missing = count - (open() - 1);
        try {
            for (long i = 0; i < missing; i++) {
                held.add(new FileInputStream("/dev/null"));
            }
        } catch (final IOException ex) {
            new Held(held).close();
            throw new UncheckedIOException("cannot open /dev/null", ex);
        }
        return new Held(held);
    }

    /** Descriptors held open by {@link #holdBelow(int)}. */
    public static final class Held implements AutoCloseable {
        private final List<FileInputStream> streams;

        private Held(final List<FileInputStream> streams) {
            this.streams = streams;
        }

        /**
         * How many descriptors were opened to fill the low ones.
         *
         * @return the count
         */
        public int count() {
            return streams.size();
        }

        @Override
        public void close() {
            for (final FileInputStream stream : streams) {
                try {
                    stream.close();
                } catch (final IOException ignored) {
                    // /dev/null: nothing to flush, nothing to lose
                }
            }
            streams.clear();
        }
    }
}
