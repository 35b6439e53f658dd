package dev.peregrine.shm;

import dev.peregrine.testkit.AllocationMeter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A child JVM for {@link ShmFutexFirstCallTest}: in a JVM where no futex call was made yet, loads the futex class as
 * every user does first ({@link ShmFutex#isAvailable()}), then measures the first {@code FUTEX_WAIT} (turned away at
 * once: the word differs) and the first {@code FUTEX_WAKE}, then {@code repeat} more of each. The word lives in a
 * shared arena, as a log's mapping does. Prints {@code BYTES <allocated by the first two calls> REPEATED <allocated
 * by the others>}, or {@code UNAVAILABLE <reason>}. Argument: the calls repeated (0 for none).
 */
final class ShmFutexFirstCallProcess {
    private ShmFutexFirstCallProcess() {
    }

    public static void main(final String[] args) {
        final int repeat = Integer.parseInt(args[0]);
        if (!ShmFutex.isAvailable()) {
            System.out.println("UNAVAILABLE " + ShmFutex.unavailableReason());
            return;
        }
        try (Arena arena = Arena.ofShared()) {
            final MemorySegment word = arena.allocate(4, 4);
            final MemorySegment timespec = arena.allocate(16, 8);
            AllocationMeter.allocatedBytes(); // its own first call, before the window
            final long before = AllocationMeter.allocatedBytes();
            ShmFutex.await(word, 1, timespec, 1_000_000L);
            ShmFutex.wake(word, 1);
            final long bytes = AllocationMeter.allocatedBytes() - before;
            final long repeatedBefore = AllocationMeter.allocatedBytes();
            for (int i = 0; i < repeat; i++) {
                ShmFutex.await(word, 1, timespec, 1_000_000L);
                ShmFutex.wake(word, 1);
            }
            final long repeated = AllocationMeter.allocatedBytes() - repeatedBefore;
            System.out.println("BYTES " + bytes + " REPEATED " + repeated);
        }
    }
}
