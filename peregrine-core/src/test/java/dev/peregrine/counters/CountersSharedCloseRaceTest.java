package dev.peregrine.counters;

import dev.peregrine.testkit.Needs;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The last user of the process-wide counters closes them on one thread while another thread takes them (a reactor
 * made as the last one closes): whichever manager is live afterwards still has its file, so {@code stat} sees the
 * process.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CountersSharedCloseRaceTest {
    private final String directoryBefore = System.getProperty(CountersManager.DIRECTORY_PROPERTY);

    @TempDir
    Path dir;

    @AfterEach
    void restoreDirectory() {
        if (directoryBefore == null) {
            System.clearProperty(CountersManager.DIRECTORY_PROPERTY);
        } else {
            System.setProperty(CountersManager.DIRECTORY_PROPERTY, directoryBefore);
        }
    }

    @Test
    void shouldKeepTheLiveManagersFileWhenTheLastUseClosesWhileAnotherThreadTakesIt() throws Exception {
        System.setProperty(CountersManager.DIRECTORY_PROPERTY, dir.toString());
        CountersManager live = CountersManager.acquireShared();
        Needs.platform("the process-wide counters unused by other tests", live.file() != null && dir.equals(live.file().getParent()),
            "they were already in use (" + live + "): not made here");
        final ExecutorService closer = Executors.newSingleThreadExecutor();
        final CyclicBarrier start = new CyclicBarrier(2);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int rounds = 0;
        int lost = 0;
        int remade = 0;
        try {
            while (rounds < 5_000 && System.nanoTime() < deadline) {
                rounds++;
                final CountersManager closing = live;
                final Future<?> closed = closer.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    closing.close();
                    return null;
                });
                start.await(10, TimeUnit.SECONDS);
                live = CountersManager.acquireShared();
                closed.get(10, TimeUnit.SECONDS);
                if (live != closing) {
                    remade++;
                }
                if (live.file() == null || !Files.exists(live.file())) {
                    lost++;
                }
            }
        } finally {
            closer.shutdownNow();
            live.close();
        }
        assertThat(remade).as("rounds where the take came after the close, of %d", rounds).isPositive();
        assertThat(lost).as("live managers without their file, in %d rounds", rounds).isZero();
        try (var files = Files.list(dir)) {
            assertThat(files.toList()).as("the last close removes the last file").isEmpty();
        }
    }
}
