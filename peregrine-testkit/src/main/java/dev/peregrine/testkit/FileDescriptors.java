package dev.peregrine.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** Counts this process's open file descriptors, for the tests that fail many times and check nothing leaked. */
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
}
