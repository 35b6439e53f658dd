package dev.peregrine.counters;

import dev.peregrine.internal.FileLocks;
import dev.peregrine.testkit.Needs;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Containers sharing {@code /dev/shm}: a process in another pid namespace has this process's pid, or a pid that runs
 * nothing here. Its live file is stood for by a manager of this JVM whose header says what that process's would.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CountersNamespaceTest {
    private static final long SELF = ProcessHandle.current().pid();

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

    /** A live file as the process of another namespace made it: its name and header carry that process's pid. */
    private CountersManager otherNamespaces(final long pid, final long startMillis) {
        final CountersManager manager = CountersManager.create(CountersDirectory.newFile(dir), 16, 0);
        manager.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, CountersDescriptor.PID_OFFSET, pid);
        manager.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, CountersDescriptor.PROCESS_START_OFFSET, startMillis);
        return manager;
    }

    @Test
    void shouldNeitherCollideWithNorRemoveTheLiveFileOfAProcessWithTheSamePidInAnotherNamespace() {
        Needs.platform("flock through FFM", FileLocks.isAvailable(), FileLocks.unavailableReason());
        final long started = CountersDirectory.startMillis(ProcessHandle.current());
        // the same pid, another process: it started at another time
        try (CountersManager theirs = otherNamespaces(SELF, started - 3_600_000)) {
            System.setProperty(CountersManager.DIRECTORY_PROPERTY, dir.toString());
            final CountersManager ours = CountersManager.acquireShared(); // removes dead files, then makes its own
            try {
                Needs.platform("the process-wide counters unused by other tests", ours.file() != null && dir.equals(ours.file().getParent()),
                    "they were already in use (" + ours + "): not made here");
                assertThat(CountersDirectory.pidOf(ours.file())).isEqualTo(SELF);
                assertThat(CountersDirectory.pidOf(theirs.file())).isEqualTo(SELF);
                assertThat(ours.file()).as("a name of its own").isNotEqualTo(theirs.file()).exists();
                assertThat(theirs.file()).as("the other namespace's live file").exists();
                assertThat(CountersDirectory.removeDead(dir)).isEmpty();
                try (CountersReader reader = CountersReader.open(theirs.file())) {
                    assertThat(reader.isOwnerAlive()).as("its owner holds its lock").isTrue();
                }
            } finally {
                ours.close();
            }
            assertThat(theirs.file()).as("left alone by our close").exists();
        }
    }

    @Test
    void shouldNotRemoveTheLiveFileOfAPidThatRunsNothingInThisNamespace() throws Exception {
        Needs.platform("flock through FFM", FileLocks.isAvailable(), FileLocks.unavailableReason());
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        try (CountersManager theirs = otherNamespaces(gone.pid(), System.currentTimeMillis())) {
            assertThat(CountersDirectory.removeDead(dir)).isEmpty();
            assertThat(theirs.file()).exists();
            try (CountersReader reader = CountersReader.open(theirs.file())) {
                assertThat(reader.isOwnerAlive()).isTrue();
            }
        }
    }

    @Test
    void shouldRemoveAFileOnceItsOwnerLetItsLockGoWhateverItsPid() throws Exception {
        Needs.platform("flock through FFM", FileLocks.isAvailable(), FileLocks.unavailableReason());
        final CountersManager theirs = otherNamespaces(SELF, CountersDirectory.startMillis(ProcessHandle.current()));
        final Path file = theirs.file();
        final Path left = dir.resolve(file.getFileName() + ".kept");
        java.nio.file.Files.copy(file, left);
        theirs.close();
        final Path dead = java.nio.file.Files.move(left, file); // what a killed owner leaves: its file, unlocked
        assertThat(CountersDirectory.removeDead(dir)).as("a pid alive here does not keep it").containsExactly(dead);
        assertThat(dead).doesNotExist();
    }
}
