package dev.peregrine.broadcast;

import dev.peregrine.testkit.AllocationMeter;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A child JVM for {@link BroadcastFirstSleepTest}: a futex reader that has read records but never slept (its warm-up
 * polls directly, no idle path), then waits for a record {@code rounds} times; a second thread offers each record only
 * once the reader has read the one before and sleeps on the futex word, so every wait goes through the spins, the yields, the sleep and the
 * writer's wake. Prints {@code BYTES <allocated by the reader's measured waits> READ <records they read>}.
 * Arguments: a fresh directory, the rounds.
 */
final class BroadcastFirstSleepProcess {
    private static final long WAIT_NS = 10_000_000_000L; // a hung wait's bound only; each ends at the writer's wake

    private BroadcastFirstSleepProcess() {
    }

    public static void main(final String[] args) throws Exception {
        final Path dir = Files.createDirectory(Path.of(args[0]),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        final int rounds = Integer.parseInt(args[1]);
        final byte[] record = new byte[8];
        try (BroadcastWriter writer = BroadcastWriter.create(dir, "sleep",
                BroadcastLogOptions.of(64, 16, 2, BroadcastPolicy.BLOCK));
             BroadcastBlockingReader reader = new BroadcastBlockingReader(
                 BroadcastReader.attach(dir, "sleep", "r", BroadcastStart.LIVE), BroadcastWait.FUTEX)) {
            final AtomicLong read = new AtomicLong();
            final BroadcastHandler handler = (buffer, offset, length, position) -> read.incrementAndGet();
            for (int i = 0; i < 4; i++) {
                writer.offer(record, 0, record.length);
            }
            for (int polls = 0; read.get() < 4 && polls < 1_000_000; polls++) {
                reader.reader().poll(handler, 16); // the read path warmed without idling: no sleep before the rounds
            }
            final Thread waker = new Thread(() -> {
                for (int i = 0; i < rounds; i++) {
                    final long deadline = System.nanoTime() + WAIT_NS;
                    while ((read.get() < i || writer.sleepers() == 0) && System.nanoTime() - deadline < 0) {
                        Thread.yield();
                    }
                    writer.offer(record, 0, record.length);
                }
            }, "waker");
            read.set(0);
            waker.start();
            long bytes = 0;
            for (int calls = 0; read.get() < rounds && calls < 2 * rounds; calls++) {
                final long before = AllocationMeter.allocatedBytes();
                reader.read(handler, 16, WAIT_NS);
                bytes += AllocationMeter.allocatedBytes() - before;
            }
            waker.join();
            System.out.println("BYTES " + bytes + " READ " + read.get());
        }
    }
}
