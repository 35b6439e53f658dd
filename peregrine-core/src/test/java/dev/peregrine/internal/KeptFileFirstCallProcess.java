package dev.peregrine.internal;

import dev.peregrine.testkit.AllocationMeter;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A child JVM for {@link KeptFileFirstCallTest}: the checks a broadcast reader and writer make again and again on a
 * kept file (its lock held by another descriptor, its lock free, its size), measured from the first call of the JVM
 * on. Two kept files in a shared arena, as a log's reader and writer keep them: one whose exclusive lock another
 * descriptor of this process holds, one no one locks. Prints {@code BYTES <allocated by the first call of each>
 * REPEATED <allocated by the next repeats> ANSWERS <ok, or what was answered>}, or {@code UNAVAILABLE <reason>}.
 * Arguments: a directory that does not exist yet, the repeats.
 */
final class KeptFileFirstCallProcess {
    static long blackhole;

    private KeptFileFirstCallProcess() {
    }

    public static void main(final String[] args) throws Exception {
        if (!FileLocks.isAvailable()) {
            System.out.println("UNAVAILABLE " + FileLocks.unavailableReason());
            return;
        }
        final Path dir = Files.createDirectory(Path.of(args[0]),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        final int repeat = Integer.parseInt(args[1]);
        final Path heldPath = dir.resolve("held");
        final Path freePath = dir.resolve("free");
        final int holder = FileLocks.createLocked(heldPath);
        FileLocks.close(FileLocks.createLocked(freePath)); // made, then its lock let go
        try (Arena arena = Arena.ofShared();
             KeptFile held = KeptFile.open(heldPath, arena);
             KeptFile free = KeptFile.open(freePath, arena)) {
            AllocationMeter.allocatedBytes(); // its own first call, before the window
            // the JVM's first long read from a segment links the layout's var handle: every user of a log has made
            // it (reading the log) before any check; not this class's
            blackhole = arena.allocate(8, 8).get(ValueLayout.JAVA_LONG, 0);
            final long before = AllocationMeter.allocatedBytes();
            int heldState = held.lockState();
            int freeState = free.lockState();
            long size = held.size();
            final long bytes = AllocationMeter.allocatedBytes() - before;
            boolean ok = heldState == KeptFile.HELD && freeState == KeptFile.FREE && size == 0;
            final long repeatedBefore = AllocationMeter.allocatedBytes();
            for (int i = 0; i < repeat; i++) {
                heldState = held.lockState();
                freeState = free.lockState();
                size = held.size();
                ok &= heldState == KeptFile.HELD && freeState == KeptFile.FREE && size == 0;
            }
            final long repeated = AllocationMeter.allocatedBytes() - repeatedBefore;
            System.out.println("BYTES " + bytes + " REPEATED " + repeated + " ANSWERS " + (ok ? "ok"
                : "held=" + heldState + " free=" + freeState + " size=" + size));
        } finally {
            FileLocks.close(holder);
        }
    }
}
