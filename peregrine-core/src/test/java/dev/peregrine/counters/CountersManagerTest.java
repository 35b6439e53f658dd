package dev.peregrine.counters;

import dev.peregrine.testkit.Needs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CountersManagerTest {
    @TempDir
    Path dir;

    /** One counter as a reader saw it. */
    record Seen(int id, int typeId, String label, long value) {
    }

    private static List<Seen> read(final CountersReader reader) {
        final List<Seen> seen = new ArrayList<>();
        reader.forEach((id, typeId, label, value) -> seen.add(new Seen(id, typeId, label, value)));
        return seen;
    }

    @Test
    void shouldShowEachLiveCounterWithItsTypeLabelAndValueInTheFile() throws Exception {
        final Path file = dir.resolve("1.counters");
        try (CountersManager manager = CountersManager.create(file, 8, 1000)) {
            final Counter a = manager.allocate(CounterTypes.TCP_BYTES_IN, "transport=t channel=1");
            final Counter b = manager.allocate(CounterTypes.UDP_DROPS, "udp=ü");
            a.add(300);
            a.increment();
            b.set(7);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
            try (CountersReader reader = CountersReader.open(file)) {
                assertThat(read(reader)).containsExactly(
                    new Seen(0, CounterTypes.TCP_BYTES_IN, "transport=t channel=1", 301),
                    new Seen(1, CounterTypes.UDP_DROPS, "udp=ü", 7));
                assertThat(reader.pid()).isEqualTo(ProcessHandle.current().pid());
                assertThat(reader.isOwnerAlive()).isTrue();
                a.close();
                assertThat(read(reader)).containsExactly(new Seen(1, CounterTypes.UDP_DROPS, "udp=ü", 7));
            }
        }
        assertThat(file).as("closing the manager removes its file").doesNotExist();
    }

    @Test
    void shouldReuseAFreedSlotOnlyAfterTheDelay() {
        final CountersManager waiting = CountersManager.inMemory(4, 60_000);
        final Counter first = waiting.allocate(CounterTypes.MOLD_GAPS, "first");
        first.close();
        assertThat(waiting.allocate(CounterTypes.MOLD_GAPS, "second").id()).isNotEqualTo(first.id());

        final CountersManager immediate = CountersManager.inMemory(4, 0);
        final Counter early = immediate.allocate(CounterTypes.MOLD_GAPS, "first");
        early.increment();
        early.close();
        final Counter reused = immediate.allocate(CounterTypes.MOLD_GAPS, "second");
        assertThat(reused.id()).isEqualTo(early.id());
        early.add(5); // a late write of the freed counter goes nowhere
        assertThat(read(CountersReader.of(immediate))).containsExactly(new Seen(reused.id(), CounterTypes.MOLD_GAPS, "second", 0));
    }

    /**
     * Freed slots are reused oldest first, each once, and a full file whose oldest freed slot is still waiting detaches
     * rather than taking a younger one (fails if a slot freed twice in the queue is handed out twice, or if the order
     * is not the order of freeing).
     */
    @Test
    void shouldReuseFreedSlotsOldestFirstAndEachOnce() {
        final CountersManager manager = CountersManager.inMemory(4, 0);
        final Counter[] counters = new Counter[4];
        for (int i = 0; i < 4; i++) {
            counters[i] = manager.allocate(CounterTypes.MOLD_GAPS, "c" + i);
        }
        counters[2].close();
        counters[0].close();
        counters[0].close(); // a second close frees nothing
        counters[3].close();

        assertThat(manager.allocate(CounterTypes.MOLD_GAPS, "a").id()).isEqualTo(counters[2].id());
        assertThat(manager.allocate(CounterTypes.MOLD_GAPS, "b").id()).isEqualTo(counters[0].id());
        assertThat(manager.allocate(CounterTypes.MOLD_GAPS, "c").id()).isEqualTo(counters[3].id());
        assertThat(manager.allocate(CounterTypes.MOLD_GAPS, "d").isDetached()).as("every slot taken").isTrue();

        final CountersManager waiting = CountersManager.inMemory(2, 60_000);
        final Counter old = waiting.allocate(CounterTypes.MOLD_GAPS, "old");
        waiting.allocate(CounterTypes.MOLD_GAPS, "kept");
        old.close();
        assertThat(waiting.allocate(CounterTypes.MOLD_GAPS, "new").isDetached()).as("the freed slot still waits").isTrue();
    }

    @Test
    void shouldDetachCountersWhenEverySlotIsTaken() {
        final CountersManager manager = CountersManager.inMemory(1, 0);
        final Counter kept = manager.allocate(CounterTypes.UDP_DROPS, "kept");
        final Counter detached = manager.allocate(CounterTypes.UDP_DROPS, "detached");
        detached.add(3);
        assertThat(kept.isDetached()).isFalse();
        assertThat(detached.isDetached()).isTrue();
        assertThat(detached.get()).isEqualTo(3);
        assertThat(read(CountersReader.of(manager))).containsExactly(new Seen(0, CounterTypes.UDP_DROPS, "kept", 0));
    }

    /**
     * The worst case for a reader: no reuse delay, and a writer that frees and reallocates the same slots as
     * fast as it can, each counter's value naming its label. A reader must never pair a label with another
     * counter's value.
     */
    @Test
    void shouldNeverShowAValueUnderAStaleLabelWhileSlotsAreReused() throws Exception {
        final CountersManager manager = CountersManager.inMemory(2, 0);
        final AtomicBoolean done = new AtomicBoolean();
        final AtomicReference<String> mismatch = new AtomicReference<>();
        final long[] reads = {0};
        final Thread reader = new Thread(() -> {
            final CountersReader counters = CountersReader.of(manager);
            while (!done.get() && mismatch.get() == null) {
                counters.forEach((id, typeId, label, value) -> {
                    reads[0]++;
                    if (value != 0 && !label.equals("counter-" + value)) {
                        mismatch.compareAndSet(null, "label " + label + " with value " + value);
                    }
                });
            }
        });
        reader.start();
        try {
            for (long k = 1; k <= 300_000 && mismatch.get() == null; k++) {
                final Counter counter = manager.allocate(CounterTypes.TCP_MESSAGES_IN, "counter-" + k);
                counter.set(k);
                counter.close();
            }
        } finally {
            done.set(true);
            reader.join();
        }
        assertThat(mismatch.get()).isNull();
        assertThat(reads[0]).as("values read").isPositive();
    }

    @Test
    void shouldRefuseAFileWithADamagedSlotCountAsNotACountersFile() throws Exception {
        final Path file = dir.resolve("2.counters");
        final byte[] bytes;
        try (CountersManager manager = CountersManager.create(file, 8, 0)) {
            manager.allocate(CounterTypes.TCP_CONNECTIONS_ACCEPTED, "a");
            bytes = Files.readAllBytes(file); // the manager removes its file when closed
        }
        final Path damaged = dir.resolve("3.counters");
        ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder()).putInt(CountersDescriptor.SLOTS_OFFSET, 0);
        Files.write(damaged, bytes);

        // IllegalStateException, as open() says: what ./peregrine stat reports in one line
        assertThatThrownBy(() -> CountersReader.open(damaged).close()).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("slots=0");
    }

    @Test
    void shouldRefuseToReadAFileThatShrankUnderItsReader() throws Exception {
        final Path file = dir.resolve("4.counters");
        try (CountersManager manager = CountersManager.create(file, 64, 0);
             CountersReader reader = CountersReader.open(file)) {
            manager.allocate(CounterTypes.TCP_CONNECTIONS_ACCEPTED, "a").increment();
            assertThat(read(reader)).hasSize(1);
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.truncate(CountersDescriptor.HEADER_LENGTH); // by another process, say
            }

            // a clear refusal, not the fault (InternalError) that reading past the file's end raises
            assertThatThrownBy(() -> read(reader)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("shrank under its reader");
        }
    }

    @Test
    void shouldStillTellTheOwnerOfAFileTruncatedBelowItsHeaderUnderItsReader() throws Exception {
        final Path file = dir.resolve("5.counters");
        try (CountersManager manager = CountersManager.create(file, 4, 0);
             CountersReader reader = CountersReader.open(file)) {
            manager.allocate(CounterTypes.TCP_CONNECTIONS_ACCEPTED, "a");
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.truncate(0); // by another process, say, between two refreshes of ./peregrine stat
            }

            // the header was taken once, when the file was opened: no fault (InternalError) reading it again
            assertThat(reader.pid()).isEqualTo(ProcessHandle.current().pid());
            assertThat(reader.isOwnerAlive()).isTrue();
            assertThat(reader.processName()).isEqualTo(System.getProperty("sun.java.command", ""));
            assertThatThrownBy(() -> read(reader)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("shrank under its reader");
        }
    }

    /** A FIFO where a counters file is looked for: opening one to read waits for a writer, forever. */
    @Test
    void shouldRefuseAFileThatIsNotARegularFileInsteadOfWaitingOnIt() throws Exception {
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        final Path fifo = dir.resolve(gone.pid() + CountersManager.FILE_SUFFIX);
        final Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        Needs.platform("mkfifo", mkfifo.waitFor(30, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo made no FIFO");

        final AtomicReference<Throwable> opened = new AtomicReference<>();
        final AtomicReference<List<Path>> removed = new AtomicReference<>();
        final Thread reader = new Thread(() -> {
            try {
                CountersReader.open(fifo).close();
            } catch (final Throwable ex) {
                opened.set(ex);
            }
            removed.set(CountersDirectory.removeDead(dir)); // what every Peregrine process does when it starts
        });
        reader.start();
        reader.join(TimeUnit.SECONDS.toMillis(20));
        final boolean waited = reader.isAlive();
        while (reader.isAlive()) { // free the thread of a failing run: a writer ends the wait
            try {
                FileChannel.open(fifo, StandardOpenOption.WRITE).close();
            } catch (final java.io.IOException ex) {
                // removed meanwhile: nothing to wait on
            }
            reader.join(100);
        }

        assertThat(waited).as("open() waited on the FIFO").isFalse();
        assertThat(opened.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("not a regular file");
        assertThat(removed.get()).as("a FIFO is no manager's: left alone").isEmpty();
        assertThat(fifo).exists();
    }

    @Test
    void shouldRemoveOnlyCountersFilesOfProcessesThatAreGoneAndLeaveOtherFilesAlone() throws Exception {
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        final long pid = gone.pid();
        final Path foreign = dir.resolve(pid + CountersManager.FILE_SUFFIX);
        Files.writeString(foreign, "a file of the user's that happens to have this name, in a folder given to --dir\n");
        final Path foreignShort = dir.resolve((pid + 1_000_000_000L) + CountersManager.FILE_SUFFIX);
        Files.writeString(foreignShort, "short");
        final Path unfinished = dir.resolve((pid + 2_000_000_000L) + CountersManager.FILE_SUFFIX);
        Files.write(unfinished, new byte[4096]); // a creation cut short: zeros, the magic not yet written
        final Path empty = dir.resolve((pid + 3_000_000_000L) + CountersManager.FILE_SUFFIX);
        Files.createFile(empty);
        final Path damaged = dir.resolve((pid + 4_000_000_000L) + CountersManager.FILE_SUFFIX);
        final ByteBuffer header = ByteBuffer.allocate(CountersDescriptor.HEADER_LENGTH).order(ByteOrder.nativeOrder());
        header.putLong(CountersDescriptor.MAGIC_OFFSET, CountersDescriptor.MAGIC).putInt(CountersDescriptor.VERSION_OFFSET, 99);
        Files.write(damaged, header.array()); // another layout version's, say
        Needs.platform("pids above 10^9 that run nothing", !CountersDirectory.isAlive(pid + 1_000_000_000L, 0)
            && !CountersDirectory.isAlive(pid + 2_000_000_000L, 0) && !CountersDirectory.isAlive(pid + 3_000_000_000L, 0)
            && !CountersDirectory.isAlive(pid + 4_000_000_000L, 0), "one of them runs a process");

        assertThat(CountersDirectory.removeDead(dir)).containsExactlyInAnyOrder(unfinished, empty, damaged);
        assertThat(foreign).exists();
        assertThat(foreignShort).exists();
    }

    /** A maker killed between making its temporary file and renaming it leaves that file; a live maker holds its lock. */
    @Test
    void shouldRemoveAnAbandonedTemporaryFileButNotOneItsMakerStillHolds() throws Exception {
        Needs.platform("flock through FFM", dev.peregrine.internal.FileLocks.isAvailable(),
            dev.peregrine.internal.FileLocks.unavailableReason());
        final Path abandoned = CountersDirectory.temporaryOf(dir.resolve("1234-1-ab" + CountersManager.FILE_SUFFIX));
        Files.write(abandoned, new byte[4096]); // zeros: cut short before the header was written
        final Path making = CountersDirectory.temporaryOf(dir.resolve("1235-1-cd" + CountersManager.FILE_SUFFIX));
        final int fd = dev.peregrine.internal.FileLocks.createLocked(making);
        try {
            assertThat(CountersDirectory.removeDead(dir)).containsExactly(abandoned);
            assertThat(abandoned).doesNotExist();
            assertThat(making).exists();
        } finally {
            dev.peregrine.internal.FileLocks.close(fd);
        }
    }
}
