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
 */
public record BenchConfig(String host, int port, int size, Path directory, boolean busySpin) {
    /** The smallest message: an 8-byte sequence number and an 8-byte timestamp. */
    public static final int MIN_SIZE = 16;
    /** Consecutive ports a transport may use from {@link #port()} (MoldUDP64 takes six: feeds, publishers, re-requests). */
    public static final int PORTS_PER_RESPONDER = 8;

    /**
     * Checks the values.
     */
    public BenchConfig {
        if (size < MIN_SIZE || size > 1 << 20) {
            throw new IllegalArgumentException("size=" + size + " must be in [" + MIN_SIZE + ", 1048576]");
        }
        if (port < 0 || port > 65536 - PORTS_PER_RESPONDER) {
            throw new IllegalArgumentException("port=" + port);
        }
        if (host == null || directory == null) {
            throw new IllegalArgumentException("host=" + host + " directory=" + directory);
        }
    }
}
