package dev.peregrine.bench.run;

import dev.peregrine.peers.BenchConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A fresh folder for each run, and each responder's share of the run's ports ({@link
 * dev.peregrine.peers.support.FreePorts} finds them), so that no run sees what an earlier one left behind (a port
 * in TIME_WAIT, a shared-memory file, an Aeron directory).
 */
public final class RunEnvironment {

    private RunEnvironment() {
    }

    /**
     * The configuration of responder {@code index} of a run: ports from {@code port + PORTS_PER_RESPONDER * index} and the one
     * after it, and its own sub-folder.
     *
     * @param base the run's configuration
     * @param index the responder, from 0
     * @return its configuration
     */
    public static BenchConfig forResponder(final BenchConfig base, final int index) {
        return new BenchConfig(base.host(), base.port() + BenchConfig.PORTS_PER_RESPONDER * index, base.size(),
            base.directory().resolve("r" + index), base.busySpin(), base.replySize(), base.respondEvery());
    }

    /**
     * The configurations of {@code count} responders.
     *
     * @param base the run's configuration
     * @param count how many
     * @return one configuration each
     */
    public static List<BenchConfig> forResponders(final BenchConfig base, final int count) {
        final List<BenchConfig> configs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            configs.add(forResponder(base, i));
        }
        return configs;
    }

    /**
     * Creates the folder of every responder of a run.
     *
     * @param configs the configurations
     */
    public static void createFolders(final List<BenchConfig> configs) {
        try {
            for (final BenchConfig config : configs) {
                Files.createDirectories(config.directory());
            }
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * A new empty folder for one run.
     *
     * @return the folder
     */
    public static Path freshFolder() {
        try {
            return Files.createTempDirectory("peregrine-bench-");
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot create a folder in java.io.tmpdir", ex);
        }
    }

    /**
     * Deletes a run's folder and everything in it, quietly.
     *
     * @param folder the folder
     */
    public static void deleteFolder(final Path folder) {
        if (folder == null || !Files.exists(folder)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(folder)) {
            walk.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (final IOException | UncheckedIOException ex) {
            System.err.println("peregrine: could not delete " + folder + ": " + ex.getMessage());
        }
    }
}
