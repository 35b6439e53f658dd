package dev.peregrine.bench.run;

import dev.peregrine.bench.stat.RunCounters;
import dev.peregrine.bench.transports.Transports;
import dev.peregrine.counters.CountersDirectory;
import dev.peregrine.counters.CountersManager;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.support.FreePorts;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The bench's counters options reach the responder JVMs it starts: off stays off, a moved directory is used. */
@Timeout(120)
class ChildResponderCountersTest {
    @TempDir
    Path dir;

    private final String enabledBefore = System.getProperty(CountersManager.ENABLED_PROPERTY);
    private final String directoryBefore = System.getProperty(CountersManager.DIRECTORY_PROPERTY);

    @AfterEach
    void restoreProperties() {
        restore(CountersManager.ENABLED_PROPERTY, enabledBefore);
        restore(CountersManager.DIRECTORY_PROPERTY, directoryBefore);
    }

    @Test
    void shouldStartTheResponderWithItsCountersFileInTheBenchsCountersDirectory() throws Exception {
        final Path counters = dir.resolve("counters");
        System.setProperty(CountersManager.DIRECTORY_PROPERTY, counters.toString());
        try (ChildResponderSide child = start()) {
            assertThat(CountersDirectory.fileOf(counters, child.pid())).isRegularFile();
            assertThat(RunCounters.read(child.pid())).isNotNull();
        }
    }

    @Test
    void shouldStartTheResponderWithoutACountersFileWhenTheBenchHasCountersOff() throws Exception {
        System.setProperty(CountersManager.ENABLED_PROPERTY, "off");
        System.clearProperty(CountersManager.DIRECTORY_PROPERTY);
        try (ChildResponderSide child = start()) {
            assertThat(CountersDirectory.fileOf(CountersDirectory.defaultDirectory(), child.pid())).isNull();
            assertThat(RunCounters.read(child.pid())).as("a run's JSON then carries no counters").isNull();
        }
    }

    private ChildResponderSide start() throws IOException, InterruptedException {
        final int port = FreePorts.block("127.0.0.1", BenchConfig.PORTS_PER_RESPONDER);
        final Path folder = Files.createDirectories(dir.resolve("responder"));
        return ChildResponderSide.start(Transports.byName("peregrine-tcp"),
            new BenchConfig("127.0.0.1", port, 64, folder, false), 1, -1);
    }

    private static void restore(final String property, final String value) {
        if (value == null) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, value);
        }
    }
}
