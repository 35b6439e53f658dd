package dev.peregrine.peers;


import java.nio.file.Path;

/**
 * Where and how a benchmarked transport runs; the same values are given to both sides (they may be
 * separate processes, so everything here is plain data that fits on a command line).
 *
 * @param host the address to listen on and connect to (loopback for local runs)
 * @param port the first port; a transport may use {@code port} to {@code port + PORTS_PER_RESPONDER - 1}
 * @param size message size in bytes, at least {@link #MIN_PINGPONG_SIZE}; {@code bench load} and {@code bench
 *     throughput} ask for {@link #MIN_SIZE}
 * @param directory a folder for files the transport needs (shared-memory rings, Aeron's directory)
 * @param busySpin whether waiting sides spin (lowest latency) rather than back off
 * @param replySize bytes of each responder's answer (its first {@link #sequenceLength()} bytes carry the ping's
 *     sequence number), at least {@link #MIN_PINGPONG_SIZE}; equal to {@code size} for an echo
 * @param respondEvery the responder answers only the messages whose message number is a multiple of this
 *     ({@link #answers(long, int)}), at least 1; 1 to answer every message; above 1 only with a {@code size} of at
 *     least {@link #MIN_SIZE} (the clients that need it carry their index in the sequence's high 32 bits)
 */
public record BenchConfig(String host, int port, int size, Path directory, boolean busySpin, int replySize,
                          int respondEvery) {
    /**
     * The smallest message of a run with many messages in flight ({@code bench load}, {@code bench throughput},
     * {@code bench compare}): room for the full 64-bit sequence number, which those runs need whole.
     */
    public static final int MIN_SIZE = 16;
    /**
     * The smallest message or reply of {@code bench pingpong}: a 32-bit sequence number (the client keeps each send
     * time itself), enough for Jocket's scenario of a 4-byte ping answered by a 1024-byte pong. See
     * {@link BenchMessageLayout}.
     */
    public static final int MIN_PINGPONG_SIZE = BenchMessageLayout.SHORT_SEQUENCE_LENGTH;
    /** The largest message or reply. */
    public static final int MAX_SIZE = 1 << 20;
    /** Consecutive ports a transport may use from {@link #port()} (MoldUDP64 takes six: feeds, publishers, re-requests). */
    public static final int PORTS_PER_RESPONDER = 8;

    /**
     * Checks the values.
     */
    public BenchConfig {
        if (size < MIN_PINGPONG_SIZE || size > MAX_SIZE) {
            throw new IllegalArgumentException("size=" + size + " must be in [" + MIN_PINGPONG_SIZE + ", " + MAX_SIZE
                + "]");
        }
        if (replySize < MIN_PINGPONG_SIZE || replySize > MAX_SIZE) {
            throw new IllegalArgumentException("replySize=" + replySize + " must be in [" + MIN_PINGPONG_SIZE + ", "
                + MAX_SIZE + "]");
        }
        if (respondEvery < 1) {
            throw new IllegalArgumentException("respondEvery=" + respondEvery + " must be at least 1");
        }
        if (respondEvery > 1 && size < MIN_SIZE) {
            throw new IllegalArgumentException("respondEvery=" + respondEvery + " needs size>=" + MIN_SIZE
                + " (bench load's clients carry their index in the sequence's high 32 bits), size=" + size);
        }
        if (port < 0 || port > 65536 - PORTS_PER_RESPONDER) {
            throw new IllegalArgumentException("port=" + port);
        }
        if (host == null || directory == null) {
            throw new IllegalArgumentException("host=" + host + " directory=" + directory);
        }
    }

    /**
     * A configuration whose responder answers every message.
     *
     * @param host the address
     * @param port the first port
     * @param size message size in bytes
     * @param directory a folder for the transport's files
     * @param busySpin whether waiting sides spin
     * @param replySize bytes of each answer
     */
    public BenchConfig(final String host, final int port, final int size, final Path directory, final boolean busySpin,
                       final int replySize) {
        this(host, port, size, directory, busySpin, replySize, 1);
    }

    /**
     * A configuration whose responder echoes every message as it came ({@code replySize == size}).
     *
     * @param host the address
     * @param port the first port
     * @param size message size in bytes
     * @param directory a folder for the transport's files
     * @param busySpin whether waiting sides spin
     */
    public BenchConfig(final String host, final int port, final int size, final Path directory, final boolean busySpin) {
        this(host, port, size, directory, busySpin, size);
    }

    /**
     * The same configuration with another reply size.
     *
     * @param bytes the reply size
     * @return the new configuration
     */
    public BenchConfig withReplySize(final int bytes) {
        return new BenchConfig(host, port, size, directory, busySpin, bytes, respondEvery);
    }

    /**
     * The same configuration with a responder that answers only every {@code n}th message.
     *
     * @param n answer the messages whose message number is a multiple of {@code n}; 1 for every message
     * @return the new configuration
     */
    public BenchConfig withRespondEvery(final int n) {
        return new BenchConfig(host, port, size, directory, busySpin, replySize, n);
    }

    /**
     * Whether a responder told to answer every {@code n}th message answers the one with {@code sequence}: when
     * its message number, the low 32 bits of the sequence, is a multiple of {@code n}. The low bits, because a
     * benchmark client that shares a connection's thread with others may carry its own index in the high 32 bits
     * (as {@code bench load} does): every client's answered messages are then the same numbers, {@code 0, n, 2n,
     * ...}. One mask and one remainder: cheap enough for a responder's hot path.
     *
     * @param sequence the message's sequence number
     * @param n the period, at least 1
     * @return true if the message is answered
     */
    public static boolean answers(final long sequence, final int n) {
        return (sequence & 0xFFFF_FFFFL) % n == 0;
    }

    /**
     * Bytes of the sequence field at the start of every message and reply: 8, or 4 (the low 32 bits) when the
     * message or the reply is shorter than 8 bytes. See {@link BenchMessageLayout}.
     *
     * @return {@link BenchMessageLayout#sequenceLength(int, int)} of the two sizes
     */
    public int sequenceLength() {
        return BenchMessageLayout.sequenceLength(size, replySize);
    }

    /**
     * Whether the responder answers with a size other than the message's.
     *
     * @return true if {@code replySize != size}
     */
    public boolean asymmetric() {
        return replySize != size;
    }

    /**
     * The larger of the message and the reply, for buffers and frame limits that carry both.
     *
     * @return {@code max(size, replySize)}
     */
    public int largest() {
        return Math.max(size, replySize);
    }
}
