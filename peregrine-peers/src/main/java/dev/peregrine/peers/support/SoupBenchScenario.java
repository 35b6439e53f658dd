package dev.peregrine.peers.support;

import dev.peregrine.peers.BenchConfig;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The SoupBinTCP scenario both SoupBinTCP transports of the benchmark follow ({@code peregrine-soup}, {@code
 * nassau-soup}), so that they do the same work:
 * <ul>
 *   <li>Ping-pong, OUCH-like: each client logs in as a user of its own and gets a session of its own; a ping is
 *       Unsequenced Data, and the answer is a Sequenced Data message on that client's session carrying the ping's
 *       sequence field ({@link BenchConfig#replySize()} bytes).</li>
 *   <li>Stream, ITCH-like: the server publishes sequenced messages on session {@value #STREAM_SESSION}; the client
 *       logs in from sequence 1 and checks every sequence number. A SoupBinTCP server keeps what it publishes and
 *       serves a slow client from its store, so TCP's flow control alone does not hold the publisher back: the
 *       receiving client sends a credit (Unsequenced Data of {@value #CREDIT_LENGTH} bytes: the next sequence
 *       number it has not delivered, little-endian) every quarter of the {@link #window window}, and when a poll finds nothing new (so
 *       the last messages are credited too: the sender's {@code flush()} is done when the receiver has credited
 *       every message; a sender that flushes in batches sees about one credit per batch), and the publisher never runs more than a window ahead of the last credit. The store keeps
 *       four windows, so a client is never left behind by the store.</li>
 * </ul>
 */
public final class SoupBenchScenario {
    /** The stream's session name. */
    public static final String STREAM_SESSION = "STREAM";
    /** The password of every login. */
    public static final String PASSWORD = "bench";
    /** The stream client's user name. */
    public static final String STREAM_USER = "reader";
    /** Bytes of a credit: the next sequence number not yet delivered, little-endian. */
    public static final int CREDIT_LENGTH = Long.BYTES;
    /** Polls in a row that find nothing before a receiver credits what it has delivered since its last credit. */
    public static final int IDLE_POLLS_BEFORE_CREDIT = 1;
    /** Most bytes of messages in one window. */
    private static final long WINDOW_BYTES = 8L << 20;
    /** Most messages in one window. */
    private static final int MAX_WINDOW = 1 << 16;
    /** Messages each ping-pong session keeps (the answers are never replayed: a bounded window suffices). */
    public static final int PING_STORE_MESSAGES = 1024;

    private static final ValueLayout.OfLong CREDIT = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final AtomicInteger USERS = new AtomicInteger();

    private SoupBenchScenario() {
    }

    /**
     * A user name no other client of this process has had: each ping-pong client owns a session.
     *
     * @return {@code p} and a number in base 36, at most 6 characters
     */
    public static String nextUser() {
        return "p" + Integer.toString(USERS.incrementAndGet() % 60_000_000, 36);
    }

    /**
     * The session a ping-pong user owns.
     *
     * @param username the user
     * @return its name, at most 10 letters and digits
     */
    public static String sessionOf(final String username) {
        return "S" + username;
    }

    /**
     * Messages the stream's publisher may run ahead of the receiver's last credit.
     *
     * @param size message size
     * @return between 64 and {@value #MAX_WINDOW}, at most 8 MiB of messages
     */
    public static int window(final int size) {
        return (int)Math.max(64, Math.min(MAX_WINDOW, WINDOW_BYTES / size));
    }

    /**
     * Messages the receiver delivers between two credits.
     *
     * @param size message size
     * @return a quarter of the window
     */
    public static int creditEvery(final int size) {
        return window(size) / 4;
    }

    /**
     * Messages the stream's store keeps: four windows.
     *
     * @param size message size
     * @return the count
     */
    public static int storeMessages(final int size) {
        return 4 * window(size);
    }

    /**
     * Message bytes the stream's store keeps: four windows, and at least one message of the largest size.
     *
     * @param size message size
     * @return the bytes
     */
    public static long storeBytes(final int size) {
        return Math.max(0x1_0000L, (long)storeMessages(size) * size);
    }

    /**
     * Bytes each ping-pong session's store keeps.
     *
     * @param config the run's configuration
     * @return {@link #PING_STORE_MESSAGES} answers, and at least 64 KiB
     */
    public static long pingStoreBytes(final BenchConfig config) {
        return Math.max(0x1_0000L, (long)PING_STORE_MESSAGES * config.replySize());
    }

    /**
     * Why a configuration cannot run over SoupBinTCP, or null.
     *
     * @param config the run's configuration
     * @return the reason, or null
     */
    public static String unavailableReason(final BenchConfig config) {
        final int largest = config.largest();
        return largest > 65_534 ? "a SoupBinTCP message is at most 65534 bytes; size=" + config.size() + " replySize="
            + config.replySize() : null;
    }

    /**
     * Writes a credit.
     *
     * @param segment where
     * @param offset at which byte
     * @param nextSequence the next sequence number not yet delivered
     */
    public static void putCredit(final MemorySegment segment, final long offset, final long nextSequence) {
        segment.set(CREDIT, offset, nextSequence);
    }

    /**
     * Reads a credit.
     *
     * @param segment where
     * @param offset at which byte
     * @param length the message's length
     * @return the next sequence number the receiver has not delivered
     * @throws IllegalStateException if the message is not a credit
     */
    public static long credit(final MemorySegment segment, final long offset, final int length) {
        if (length != CREDIT_LENGTH) {
            throw new IllegalStateException("a credit of length=" + length + ", expected " + CREDIT_LENGTH);
        }
        return segment.get(CREDIT, offset);
    }
}
