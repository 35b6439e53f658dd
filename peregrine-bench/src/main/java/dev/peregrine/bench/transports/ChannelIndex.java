package dev.peregrine.bench.transports;

/**
 * Which member of a client group a channel id belongs to, found in constant time without allocating: an
 * open-addressing table of ids (linear probing, at most half full) made once for a fixed number of members.
 * The whole id is compared, so a stale id (another generation of the same slot) names no member.
 */
final class ChannelIndex {
    private static final long NO_ID = 0; // no transport hands out id 0: negative and zero values are result codes
    private static final long SPREAD = 0x9E37_79B9_7F4A_7C15L; // Fibonacci hashing: the high bits of id * 2^64/phi

    private final long[] ids;
    private final int[] members;
    private final int shift;
    private final int capacity;
    private int count;

    /**
     * Creates an empty index.
     *
     * @param capacity the most ids it will hold
     */
    ChannelIndex(final int capacity) {
        if (capacity < 1 || capacity > 1 << 28) {
            throw new IllegalArgumentException("capacity=" + capacity);
        }
        final int size = Integer.highestOneBit(capacity * 2 - 1) << 1; // a power of two, at least twice the capacity
        this.ids = new long[size];
        this.members = new int[size];
        this.shift = Long.numberOfLeadingZeros(size - 1L);
        this.capacity = capacity;
    }

    /**
     * Records that {@code id} belongs to member {@code member}.
     *
     * @param id a channel id, positive
     * @param member the member's index
     * @throws IllegalArgumentException if the id is not positive or already recorded
     * @throws IllegalStateException if the index holds its capacity already
     */
    void put(final long id, final int member) {
        if (id <= NO_ID) {
            throw new IllegalArgumentException("id=" + id + " must be positive");
        }
        final int mask = ids.length - 1;
        int i = slot(id);
        while (ids[i] != NO_ID) { // ends: the table is at most half full
            if (ids[i] == id) {
                throw new IllegalArgumentException("id=" + id + " already belongs to member " + members[i]);
            }
            i = (i + 1) & mask;
        }
        if (count == capacity) {
            throw new IllegalStateException("index full: capacity=" + capacity);
        }
        ids[i] = id;
        members[i] = member;
        count++;
    }

    /**
     * The member {@code id} belongs to.
     *
     * @param id a channel id
     * @return the member's index, or -1 if the id was never recorded
     */
    int member(final long id) {
        final int mask = ids.length - 1;
        for (int i = slot(id); ; i = (i + 1) & mask) { // ends: the table is at most half full
            final long at = ids[i];
            if (at == id && id != NO_ID) {
                return members[i];
            }
            if (at == NO_ID) {
                return -1;
            }
        }
    }

    private int slot(final long id) {
        return (int)((id * SPREAD) >>> shift);
    }
}
