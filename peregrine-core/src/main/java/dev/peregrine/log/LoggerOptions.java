package dev.peregrine.log;

import dev.peregrine.reactor.BackoffIdleStrategy;
import dev.peregrine.reactor.IdleStrategy;

import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Settings of an {@link AsyncLogger}; fluent, validated on each setter.
 */
public final class LoggerOptions {
    /** The shortest claim timeout: GC pauses and descheduling of milliseconds are normal, a claim is no lock. */
    public static final long MIN_CLAIM_TIMEOUT_NS = 1_000_000_000L;
    /** The longest payload a record may show. */
    public static final int MAX_PAYLOAD_LIMIT = 64 * 1024;

    private int capacity = 1 << 20;
    private int maxPayloadLength = 256;
    private long claimTimeoutNs = MIN_CLAIM_TIMEOUT_NS;
    private int writeBufferLength = 64 * 1024;
    private Supplier<IdleStrategy> idleStrategy = () -> new BackoffIdleStrategy(0, 10, 10_000, 1_000_000);
    private LongSupplier epochNanos;
    private String threadName = "peregrine-logger";

    /**
     * Creates options with the defaults: a 1 MiB ring, payloads shown up to 256 bytes, a claim timeout of one second,
     * a 64 KiB write buffer, a logger thread that yields then parks from 10 µs to 1 ms when idle (it never spins), and
     * timestamps from {@code System.nanoTime()} plus the epoch offset read once at open.
     */
    public LoggerOptions() {
    }

    /**
     * Bytes of the ring's data area, a power of two from {@link LogRingDescriptor#MIN_CAPACITY} to
     * {@link LogRingDescriptor#MAX_CAPACITY}; at least four times the longest record.
     *
     * @param capacity bytes
     * @return this
     */
    public LoggerOptions capacity(final int capacity) {
        if (capacity < LogRingDescriptor.MIN_CAPACITY || capacity > LogRingDescriptor.MAX_CAPACITY
            || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity=" + capacity + " is not a power of two from "
                + LogRingDescriptor.MIN_CAPACITY + " to " + LogRingDescriptor.MAX_CAPACITY);
        }
        this.capacity = capacity;
        return this;
    }

    /**
     * The most payload bytes a record keeps; a longer payload is truncated to it, and the line says how long it was.
     *
     * @param maxPayloadLength bytes, from 0 to {@link #MAX_PAYLOAD_LIMIT}
     * @return this
     */
    public LoggerOptions maxPayloadLength(final int maxPayloadLength) {
        if (maxPayloadLength < 0 || maxPayloadLength > MAX_PAYLOAD_LIMIT) {
            throw new IllegalArgumentException("maxPayloadLength=" + maxPayloadLength + " is not from 0 to "
                + MAX_PAYLOAD_LIMIT);
        }
        this.maxPayloadLength = maxPayloadLength;
        return this;
    }

    /**
     * How long a claim may stay uncommitted at the head of the ring before the logger pads over it, counted from
     * when the logger first found it there. Never less than {@link #MIN_CLAIM_TIMEOUT_NS} (one second).
     *
     * @param claimTimeoutNs nanoseconds
     * @return this
     */
    public LoggerOptions claimTimeoutNs(final long claimTimeoutNs) {
        if (claimTimeoutNs < MIN_CLAIM_TIMEOUT_NS) {
            throw new IllegalArgumentException("claimTimeoutNs=" + claimTimeoutNs + " is below one second");
        }
        this.claimTimeoutNs = claimTimeoutNs;
        return this;
    }

    /**
     * Bytes of text gathered before one write to the file (a write also happens whenever the ring is empty).
     *
     * @param writeBufferLength bytes, at least 4096
     * @return this
     */
    public LoggerOptions writeBufferLength(final int writeBufferLength) {
        if (writeBufferLength < 4096) {
            throw new IllegalArgumentException("writeBufferLength=" + writeBufferLength + " is below 4096");
        }
        this.writeBufferLength = writeBufferLength;
        return this;
    }

    /**
     * What the logger's thread does when the ring is empty. On a machine with few cores it must not spin.
     *
     * @param idleStrategy makes one strategy, for the logger's thread
     * @return this
     */
    public LoggerOptions idleStrategy(final Supplier<IdleStrategy> idleStrategy) {
        if (idleStrategy == null) {
            throw new IllegalArgumentException("idleStrategy=null");
        }
        this.idleStrategy = idleStrategy;
        return this;
    }

    /**
     * The clock of the records' timestamps, read once per record on the producer's thread; it must allocate nothing.
     *
     * @param epochNanos nanoseconds since 1970-01-01T00:00Z; null for the default
     * @return this
     */
    public LoggerOptions epochNanos(final LongSupplier epochNanos) {
        this.epochNanos = epochNanos;
        return this;
    }

    /**
     * The name of the logger's thread.
     *
     * @param threadName a name
     * @return this
     */
    public LoggerOptions threadName(final String threadName) {
        if (threadName == null || threadName.isEmpty()) {
            throw new IllegalArgumentException("threadName=" + threadName);
        }
        this.threadName = threadName;
        return this;
    }

    /**
     * The data capacity.
     *
     * @return bytes
     */
    public int capacity() {
        return capacity;
    }

    /**
     * The most payload bytes a record keeps.
     *
     * @return bytes
     */
    public int maxPayloadLength() {
        return maxPayloadLength;
    }

    /**
     * The claim timeout.
     *
     * @return nanoseconds
     */
    public long claimTimeoutNs() {
        return claimTimeoutNs;
    }

    /**
     * The write buffer's length.
     *
     * @return bytes
     */
    public int writeBufferLength() {
        return writeBufferLength;
    }

    /**
     * The idle strategy's maker.
     *
     * @return the supplier
     */
    public Supplier<IdleStrategy> idleStrategy() {
        return idleStrategy;
    }

    /**
     * The timestamp clock, or null for the default.
     *
     * @return the clock
     */
    public LongSupplier epochNanos() {
        return epochNanos;
    }

    /**
     * The logger thread's name.
     *
     * @return the name
     */
    public String threadName() {
        return threadName;
    }
}
