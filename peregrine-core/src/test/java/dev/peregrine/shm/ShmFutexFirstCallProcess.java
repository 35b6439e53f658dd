package dev.peregrine.shm;

import dev.peregrine.testkit.AllocationMeter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A child JVM for {@link ShmFutexFirstCallTest}: in a JVM where no futex call was made yet, loads the futex class as
 * every user does first ({@link ShmFutex#isAvailable()}), then measures the first {@code FUTEX_WAIT} (turned away at
 * once: the word differs) and the first {@code FUTEX_WAKE}. Prints {@code BYTES <allocated by the two calls>}, or
 * {@code UNAVAILABLE <reason>}.
 */
final class ShmFutexFirstCallProcess {
    private ShmFutexFirstCallProcess() {
    }

    public static void main(final String[] args) {
        if (!ShmFutex.isAvailable()) {
            System.out.println("UNAVAILABLE " + ShmFutex.unavailableReason());
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment word = arena.allocate(4, 4);
            final MemorySegment timespec = arena.allocate(16, 8);
            AllocationMeter.allocatedBytes(); // its own first call, before the window
            final long before = AllocationMeter.allocatedBytes();
            ShmFutex.await(word, 1, timespec, 1_000_000L);
            ShmFutex.wake(word, 1);
            final long bytes = AllocationMeter.allocatedBytes() - before;
            System.out.println("BYTES " + bytes);
        }
    }
}
