package dev.peregrine.counters;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A process starts with the pid of one that crashed and makes its counters file while another process (starting,
 * or {@code ./peregrine stat}) removes the crashed one's: the remover judged the old file, and must not remove the
 * new one that took its name meanwhile.
 */
@Tag("slow")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CountersRemovalRaceTest {
    @TempDir
    Path dir;

    /** A counters file of one slot, as a process with this pid and start time made it. */
    private static byte[] image(final long pid, final long startMillis) {
        final ByteBuffer bytes = ByteBuffer.allocate((int)CountersDescriptor.fileLength(1)).order(ByteOrder.nativeOrder());
        bytes.putLong(CountersDescriptor.MAGIC_OFFSET, CountersDescriptor.MAGIC)
            .putInt(CountersDescriptor.VERSION_OFFSET, CountersDescriptor.VERSION)
            .putInt(CountersDescriptor.SLOTS_OFFSET, 1)
            .putLong(CountersDescriptor.PID_OFFSET, pid)
            .putLong(CountersDescriptor.PROCESS_START_OFFSET, startMillis);
        return bytes.array();
    }

    @Test
    void shouldNeverRemoveTheFileOfALiveProcessMadeUnderTheNameOfADeadOneWhileThatWasJudged() throws Exception {
        // stands for the crashed process's successor: it runs with the pid the dead file is named for
        final Process successor = new ProcessBuilder("sleep", "120").start();
        final ExecutorService remover = Executors.newSingleThreadExecutor();
        final List<CountersManager> made = new ArrayList<>();
        try {
            final long pid = successor.pid();
            final Path file = dir.resolve(pid + CountersManager.FILE_SUFFIX);
            final long started = CountersDirectory.startMillis(successor.toHandle());
            final byte[] crashed = image(pid, started - 3_600_000); // the same pid, an hour earlier: dead
            final SplittableRandom random = new SplittableRandom(7);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            int rounds = 0;
            int failedToMake = 0;
            int removedLive = 0;
            while (rounds < 2_000 && System.nanoTime() < deadline) {
                rounds++;
                Files.deleteIfExists(file);
                Files.write(file, crashed);
                final CountDownLatch go = new CountDownLatch(1);
                final Future<List<Path>> removing = remover.submit(() -> {
                    go.await();
                    return CountersDirectory.removeDead(dir);
                });
                go.countDown();
                final long makeAt = System.nanoTime() + random.nextLong(400_000); // somewhere in the remover's work
                while (System.nanoTime() < makeAt) {
                    Thread.onSpinWait();
                }
                // what the successor does when it starts: replaces the dead file with its own (header: this JVM, alive)
                boolean madeIt = true;
                try {
                    made.add(CountersManager.create(file, 1, 0));
                } catch (final UncheckedIOException ex) {
                    madeIt = false; // removed between its making and its mapping
                }
                removing.get(30, TimeUnit.SECONDS);
                if (!madeIt) {
                    failedToMake++;
                } else if (!Files.exists(file)) {
                    removedLive++;
                }
            }
            assertThat(new int[] {failedToMake, removedLive}).as("files failed to make, live files removed, in %d rounds",
                rounds).containsExactly(0, 0);
        } finally {
            remover.shutdownNow();
            successor.destroyForcibly();
            for (final CountersManager manager : made) {
                manager.close();
            }
        }
    }
}
