package dev.peregrine.shm;

import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * Settings of a shared-memory channel; fluent, validated on each setter. The server's values decide: the
 * client learns them in the rendezvous and checks the ring files against them.
 */
public final class ShmOptions {
    private int ringCapacity = 1 << 20;
    private int maxMessageLength = 64 * 1024;
    private int maxMessagesInFlight = 1 << 16;
    private int recordAlignment = ShmRingDescriptor.CACHE_LINE_ALIGNMENT;
    private Path ringDirectory = ShmRingFile.defaultDirectory();
    private long handshakeTimeoutNs = 5_000_000_000L;
    private Supplier<ShmWaitStrategy> waitStrategy = ShmBackoffWait::new;

    /** Creates options with the defaults: 1 MiB rings, 64 KiB messages, rings in /dev/shm, back-off waiting. */
    public ShmOptions() {
    }

    /**
     * Data capacity of each ring (one per direction).
     *
     * @param capacity a power of two, at least {@link ShmRingDescriptor#MIN_CAPACITY}
     * @return this
     */
    public ShmOptions ringCapacity(final int capacity) {
        ShmRingDescriptor.checkParameters(capacity, Math.min(maxMessageLength, ShmRingDescriptor.maxMessageLengthFor(capacity)), 1);
        this.ringCapacity = capacity;
        this.maxMessageLength = Math.min(maxMessageLength, ShmRingDescriptor.maxMessageLengthFor(capacity));
        return this;
    }

    /**
     * Largest message; longer ones are refused.
     *
     * @param maxMessageLength at most {@link ShmRingDescriptor#maxMessageLengthFor} the capacity
     * @return this
     */
    public ShmOptions maxMessageLength(final int maxMessageLength) {
        ShmRingDescriptor.checkParameters(ringCapacity, maxMessageLength, 1);
        this.maxMessageLength = maxMessageLength;
        return this;
    }

    /**
     * Where records start in the rings the server creates: every {@code 64} bytes (the default, a cache line:
     * a small message is one line and never straddles two, the lower round-trip latency) or every {@code 8}
     * (packed: fewer lines per small message, the higher one-way throughput). A client follows the server's
     * rings, whatever its own setting.
     *
     * @param alignment a power of two from {@link ShmRingDescriptor#MIN_ALIGNMENT} to
     *     {@link ShmRingDescriptor#CACHE_LINE_ALIGNMENT}
     * @return this
     */
    public ShmOptions recordAlignment(final int alignment) {
        ShmRingDescriptor.checkAlignment(alignment);
        this.recordAlignment = alignment;
        return this;
    }

    /**
     * Record alignment of the rings the server creates.
     *
     * @return bytes
     */
    public int recordAlignment() {
        return recordAlignment;
    }

    /**
     * Most messages written and not yet read, per direction.
     *
     * @param maxMessages at least 1
     * @return this
     */
    public ShmOptions maxMessagesInFlight(final int maxMessages) {
        ShmRingDescriptor.checkParameters(ringCapacity, maxMessageLength, maxMessages);
        this.maxMessagesInFlight = maxMessages;
        return this;
    }

    /**
     * Folder of the ring files; default {@code /dev/shm} where present, else the temporary folder.
     *
     * @param directory an existing folder
     * @return this
     */
    public ShmOptions ringDirectory(final Path directory) {
        if (directory == null) {
            throw new IllegalArgumentException("ringDirectory=null");
        }
        this.ringDirectory = directory;
        return this;
    }

    /**
     * Longest time the rendezvous may take.
     *
     * @param timeoutNs positive
     * @return this
     */
    public ShmOptions handshakeTimeoutNs(final long timeoutNs) {
        if (timeoutNs <= 0) {
            throw new IllegalArgumentException("handshakeTimeoutNs=" + timeoutNs);
        }
        this.handshakeTimeoutNs = timeoutNs;
        return this;
    }

    /**
     * How the blocking API ({@link ShmSocket}) waits for messages and for room; one instance per stream.
     *
     * @param waitStrategy makes a strategy
     * @return this
     */
    public ShmOptions waitStrategy(final Supplier<ShmWaitStrategy> waitStrategy) {
        if (waitStrategy == null) {
            throw new IllegalArgumentException("waitStrategy=null");
        }
        this.waitStrategy = waitStrategy;
        return this;
    }

    /**
     * Data capacity of each ring.
     *
     * @return bytes
     */
    public int ringCapacity() {
        return ringCapacity;
    }

    /**
     * Largest message.
     *
     * @return bytes
     */
    public int maxMessageLength() {
        return maxMessageLength;
    }

    /**
     * Most messages in flight per direction.
     *
     * @return the count
     */
    public int maxMessagesInFlight() {
        return maxMessagesInFlight;
    }

    /**
     * Folder of the ring files.
     *
     * @return the folder
     */
    public Path ringDirectory() {
        return ringDirectory;
    }

    /**
     * Longest rendezvous.
     *
     * @return nanoseconds
     */
    public long handshakeTimeoutNs() {
        return handshakeTimeoutNs;
    }

    /**
     * Makes the blocking API's wait strategy.
     *
     * @return the factory
     */
    public Supplier<ShmWaitStrategy> waitStrategy() {
        return waitStrategy;
    }
}
