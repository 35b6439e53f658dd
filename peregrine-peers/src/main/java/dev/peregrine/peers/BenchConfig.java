package dev.peregrine.peers;

import java.nio.file.Path;

/**
 * Where and how a benchmarked transport runs; the same values are given to both sides (they may be
 * separate processes, so everything here is plain data that fits on a command line).
 *
 * @param host the address to listen on and connect to (loopback for local runs)
 * @param port the first port; a transport may use {@code port} to {@code port + PORTS_PER_RESPONDER - 1}
 * @param size message size in bytes, at least 16 (sequence number and timestamp)
 * @param directory a folder for files the transport needs (shared-memory rings, Aeron's directory)
 * @param busySpin whether waiting sides spin (lowest latency) rather than back off
 * @param replySize bytes of each responder's answer (its first 8 bytes carry the ping's sequence number), at
 *     least 16; equal to {@code size} for an echo
 */
public record BenchConfig(String host, int port, int size, Path directory, boolean busySpin, int replySize) {
    /** The smallest message: an 8-byte sequence number and an 8-byte timestamp. */
    public static final int MIN_SIZE = 16;
    /** The largest message or reply. */
    public static final int MAX_SIZE = 1 << 20;
    /** Consecutive ports a transport may use from {@link #port()} (MoldUDP64 takes six: feeds, publishers, re-requests). */
    public static final int PORTS_PER_RESPONDER = 8;

    /**
     * Checks the values.
     */
    public BenchConfig {
        if (size < MIN_SIZE || size > MAX_SIZE) {
            throw new IllegalArgumentException("size=" + size + " must be in [" + MIN_SIZE + ", " + MAX_SIZE + "]");
        }
        if (replySize < MIN_SIZE || replySize > MAX_SIZE) {
            throw new IllegalArgumentException("replySize=" + replySize + " must be in [" + MIN_SIZE + ", " + MAX_SIZE
                + "]");
        }
        if (port < 0 || port > 65536 - PORTS_PER_RESPONDER) {
            throw new IllegalArgumentException("port=" + port);
        }
        if (host == null || directory == null) {
            throw new IllegalArgumentException("host=" + host + " directory=" + directory);
        }
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
        return new BenchConfig(host, port, size, directory, busySpin, bytes);
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
