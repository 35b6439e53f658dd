package dev.peregrine.shm;

/** Small helpers shared by the shared-memory tests. */
final class ShmRingTestSupport {
    private ShmRingTestSupport() {
    }

    static void fill(final byte[] bytes, final int length, final int seed) {
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte)(seed * 31 + i);
        }
    }
}
