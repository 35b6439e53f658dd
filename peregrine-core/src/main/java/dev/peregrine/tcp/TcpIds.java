package dev.peregrine.tcp;

/**
 * Layout of the {@code long} ids a {@link TcpTransport} hands out: a slot index and the generation of
 * that slot, so an id kept after its connection closed never names the next connection in the slot.
 *
 * <pre>
 *   63 62                              32 31 30 29                         0
 *  +--+----------------------------------+--+--+----------------------------+
 *  |0 |         generation (31 bits)     |0 |S |     slot index (30 bits)   |
 *  +--+----------------------------------+--+--+----------------------------+
 *   S = 1 for a server (listening socket), 0 for a connection
 * </pre>
 *
 * <p>Generations start at 1, so no id is 0 or negative (negative values are {@code SendResult} codes).
 */
final class TcpIds {
    /** Largest slot index. */
    static final int MAX_INDEX = (1 << 30) - 1;
    private static final long SERVER_BIT = 1L << 30;

    private TcpIds() {
    }

    static long connectionId(final int generation, final int index) {
        return ((long)generation << 32) | index;
    }

    static long serverId(final int generation, final int index) {
        return ((long)generation << 32) | SERVER_BIT | index;
    }

    static boolean isServer(final long id) {
        return (id & SERVER_BIT) != 0;
    }

    static int index(final long id) {
        return (int)(id & MAX_INDEX);
    }

    static int nextGeneration(final int generation) {
        return generation == Integer.MAX_VALUE ? 1 : generation + 1;
    }
}
