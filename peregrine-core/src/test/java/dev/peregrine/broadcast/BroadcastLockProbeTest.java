package dev.peregrine.broadcast;

import dev.peregrine.internal.FileLocks;
import dev.peregrine.internal.KeptFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A liveness probe holds a lock file's shared lock for two system calls. A writer (or reader) taking its exclusive lock
 * in that moment must wait the probe out, not take the free lock for a held one; a real holder still refuses it at once.
 */
class BroadcastLockProbeTest {
    private static final long WAIT_LIMIT_NS = TimeUnit.SECONDS.toNanos(60); // fails a wait that hung

    @TempDir
    Path temp;

    @Test
    void shouldTakeAWriterLockThatOnlyAProbesSharedLockRefuses() throws Exception {
        final Path dir = temp.resolve("logs");
        final Path log;
        try (BroadcastWriter created = BroadcastWriter.create(dir, "probed",
            BroadcastLogOptions.of(16, 8, 2, BroadcastPolicy.DROP))) {
            log = created.path();
        }
        final Path lockFile = BroadcastFiles.writerLockPath(log);
        try (Arena arena = Arena.ofConfined()) {
            final KeptFile probe = KeptFile.open(lockFile, arena);
            try {
                assertThat(probe.fd()).as("the writer's lock file, opened").isNotNegative();
                // the probe caught between its LOCK_SH and its LOCK_UN, for as long as this test likes
                assertThat(FileLocks.tryLock(probe.fd(), false)).as("the probe's shared lock").isTrue();
                final long before = BroadcastFiles.PROBES_WAITED_OUT.get();
                final CompletableFuture<BroadcastWriter> opened =
                    CompletableFuture.supplyAsync(() -> BroadcastWriter.open(dir, "probed"));
                final long deadline = System.nanoTime() + WAIT_LIMIT_NS;
                while (BroadcastFiles.PROBES_WAITED_OUT.get() == before && !opened.isDone()) {
                    assertThat(System.nanoTime() - deadline).as("the writer neither waited nor ended").isNegative();
                    Thread.onSpinWait();
                }
                assertThat(opened.isDone()).as("the writer ended while the probe held its shared lock: "
                    + (opened.isDone() ? String.valueOf(opened.handle((w, ex) -> ex).join()) : "")).isFalse();
                probe.close(); // the probe's LOCK_UN
                try (BroadcastWriter writer = opened.get(60, TimeUnit.SECONDS)) {
                    assertThat(writer.path()).isEqualTo(log);
                }
            } finally {
                probe.close();
            }
        }
    }

    @Test
    void shouldRefuseAWriterLockThatAWriterHoldsAtOnce() {
        final Path dir = temp.resolve("logs");
        try (BroadcastWriter first = BroadcastWriter.create(dir, "held",
            BroadcastLogOptions.of(16, 8, 2, BroadcastPolicy.DROP))) {
            final long before = BroadcastFiles.PROBES_WAITED_OUT.get();
            assertThatThrownBy(() -> BroadcastWriter.open(dir, "held")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already has a writer");
            assertThat(BroadcastFiles.PROBES_WAITED_OUT.get()).as("an exclusive holder is not waited for").isEqualTo(before);
            assertThat(first.path().getFileName().toString()).startsWith("held");
        }
    }
}
