package dev.peregrine.broadcast;

import dev.peregrine.testkit.AllocationMeter;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A child JVM for {@link BroadcastIdleReaderTest}: a writer and an idle reader that checks the writer at every poll,
 * run where the JIT never reaches C2 (the test starts it with {@code -XX:TieredStopAtLevel=1}), as a check made every
 * 50 ms stays for minutes. Prints {@code BYTES <allocated by the measured polls> CHECKS <writer checks made>}.
 * Arguments: a fresh directory, the warm-up polls, the measured polls.
 */
final class BroadcastIdleCheckProcess {
    private BroadcastIdleCheckProcess() {
    }

    public static void main(final String[] args) throws Exception {
        final Path dir = Files.createDirectory(Path.of(args[0]),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        final int warmup = Integer.parseInt(args[1]);
        final int measured = Integer.parseInt(args[2]);
        try (BroadcastWriter writer = BroadcastWriter.create(dir, "c1",
                BroadcastLogOptions.of(64, 16, 2, BroadcastPolicy.DROP));
             BroadcastReader reader = BroadcastReader.attach(dir, "c1", "r", BroadcastStart.LIVE)) {
            reader.writerCheckIntervalNs(0);
            final BroadcastHandler none = (buffer, offset, length, position) -> { };
            for (int i = 0; i < warmup; i++) {
                reader.poll(none, 16);
            }
            final long checksBefore = reader.writerChecks();
            final long before = AllocationMeter.allocatedBytes();
            for (int i = 0; i < measured; i++) {
                reader.poll(none, 16);
            }
            final long bytes = AllocationMeter.allocatedBytes() - before;
            System.out.println("BYTES " + bytes + " CHECKS " + (reader.writerChecks() - checksBefore)
                + (reader.isWriterGone() || reader.isDone() ? " WRITER-GONE-OR-DONE" : ""));
            writer.position();
        }
    }
}
