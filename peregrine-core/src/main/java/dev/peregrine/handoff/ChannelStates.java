package dev.peregrine.handoff;

import java.util.Arrays;

/**
 * What the application thread of a separated stack knows of each id: an open-addressing map from id to state,
 * linear probing, removal by backward shift (no tombstones). Lookups allocate nothing; it grows, allocating, only
 * when an id is added past half full, which happens on a connection event. One thread.
 */
final class ChannelStates {
    static final int ABSENT = 0;
    static final int CONNECTING = 1;
    static final int OPEN = 2;
    static final int CLOSING = 3;
    static final int SERVER = 4;

    private static final long EMPTY = Long.MIN_VALUE;
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private long[] keys;
    private byte[] states;
    private int mask;
    private int size;

    ChannelStates(final int initialCapacity) {
        final int capacity = Integer.highestOneBit(Math.max(16, initialCapacity - 1) << 1);
        this.keys = new long[capacity];
        this.states = new byte[capacity];
        this.mask = capacity - 1;
        Arrays.fill(keys, EMPTY);
    }

    int get(final long id) {
        int i = home(id);
        while (true) {
            final long key = keys[i];
            if (key == id) {
                return states[i];
            }
            if (key == EMPTY) {
                return ABSENT;
            }
            i = (i + 1) & mask;
        }
    }

    void put(final long id, final int state) {
        if (id == EMPTY) {
            throw new IllegalArgumentException("id=" + id);
        }
        int i = home(id);
        while (keys[i] != EMPTY && keys[i] != id) {
            i = (i + 1) & mask;
        }
        if (keys[i] == EMPTY) {
            if (2 * (size + 1) > keys.length) {
                grow();
                put(id, state);
                return;
            }
            keys[i] = id;
            size++;
        }
        states[i] = (byte)state;
    }

    void remove(final long id) {
        int i = home(id);
        while (keys[i] != id) {
            if (keys[i] == EMPTY) {
                return;
            }
            i = (i + 1) & mask;
        }
        keys[i] = EMPTY;
        size--;
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            final long key = keys[j];
            if (key == EMPTY) {
                return;
            }
            final int k = home(key);
            // the entry at j may move to the hole at i unless its home lies cyclically in (i, j]
            final boolean stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
            if (!stays) {
                keys[i] = key;
                states[i] = states[j];
                keys[j] = EMPTY;
                i = j;
            }
        }
    }

    int size() {
        return size;
    }

    private int home(final long id) {
        final long mixed = id * GOLDEN;
        return (int)(mixed ^ (mixed >>> 32)) & mask;
    }

    private void grow() {
        final long[] oldKeys = keys;
        final byte[] oldStates = states;
        keys = new long[oldKeys.length * 2];
        states = new byte[oldKeys.length * 2];
        mask = keys.length - 1;
        size = 0;
        Arrays.fill(keys, EMPTY);
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != EMPTY) {
                put(oldKeys[i], oldStates[i]);
            }
        }
    }
}
