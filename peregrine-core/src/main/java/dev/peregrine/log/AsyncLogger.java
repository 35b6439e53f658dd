package dev.peregrine.log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

import static dev.peregrine.log.LogRingDescriptor.ABANDONED_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.A_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.B_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.CHANNEL_ID_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.DROPPED_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.EVENT_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.FLAGS_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.FLAG_PAYLOAD;
import static dev.peregrine.log.LogRingDescriptor.FLAG_TEXT;
import static dev.peregrine.log.LogRingDescriptor.HEADER_LENGTH;
import static dev.peregrine.log.LogRingDescriptor.HEAD_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.LEVEL_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.LONG;
import static dev.peregrine.log.LogRingDescriptor.MISUSE_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.PAYLOAD_LENGTH_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.RECORD_HEADER_LENGTH;
import static dev.peregrine.log.LogRingDescriptor.TAIL_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.TIMESTAMP_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.TYPE_PADDING;
import static dev.peregrine.log.LogRingDescriptor.TYPE_RECORD;
import static dev.peregrine.log.LogRingDescriptor.WRITTEN_OFFSET;
import static dev.peregrine.log.LogRingDescriptor.aligned;
import static dev.peregrine.log.LogRingDescriptor.lap;
import static dev.peregrine.log.LogRingDescriptor.lapOf;
import static dev.peregrine.log.LogRingDescriptor.recordLength;
import static dev.peregrine.log.LogRingDescriptor.state;
import static dev.peregrine.log.LogRingDescriptor.stateAcquire;
import static dev.peregrine.log.LogRingDescriptor.type;

/**
 * A logger whose producers, on any thread, write encoded records into an off-heap ring without garbage, and whose
 * own thread formats them to text and appends them to a file: CoralReactor's asynchronous logging.
 *
 * <p>A record is a timestamp (epoch nanoseconds, the clock read once per record), a {@link LogLevel}, a
 * {@link LogEvent}, a channel id, two free longs and an optional payload (message bytes or text), truncated to
 * {@link LoggerOptions#maxPayloadLength}; the line says how long it was. The line format is in
 * {@code docs/logging.md}.
 *
 * <p>Producers never block and never spin:
 * <ul>
 *   <li>a full ring drops the record, counts it ({@link #dropped()}) and answers {@link #DROPPED};</li>
 *   <li>{@link #connectionEvent}, {@link #message} and {@link #log} claim, copy and commit in one call;
 *       {@link #tryClaim}, {@link #commit} and {@link #abortClaim} let a producer write the payload in place;</li>
 *   <li>a claim left uncommitted (its producer hangs, or its thread ended) stalls the records behind it for at most
 *       {@link LoggerOptions#claimTimeoutNs} (one second or more) from when the logger's thread first found it at the
 *       head: that thread then pads over it and counts it ({@link #abandoned()}); the late {@link #commit} answers
 *       {@link #ABANDONED} and nothing of it is written.</li>
 * </ul>
 *
 * <p>The logger's thread idles with the configured strategy (by default it yields, then parks: it never spins),
 * gathers lines in a reused buffer and writes them with one {@code FileChannel} write whenever the buffer is full or
 * the ring is empty. {@link #close()} writes every record committed before it was called, then closes the file.
 *
 * <p>Threading: every method is safe from any thread and, but for {@link #open} and {@link #close()}, allocates
 * nothing. A record committed while {@link #close()} runs may be lost; after it, producers get {@link #CLOSED}.
 */
public final class AsyncLogger implements AutoCloseable {
    /** The ring was full: the record is dropped and counted. */
    public static final long DROPPED = -1;
    /** The logger is closed: nothing was taken. */
    public static final long CLOSED = -3;
    /** The claim outlived the claim timeout and was padded over: nothing of it is written. */
    public static final long ABANDONED = -10;

    private final Path file;
    private final MemorySegment segment;
    private final int capacity;
    private final int capacityBits;
    private final long mask;
    private final int maxPayloadLength;
    private final LongSupplier epochNanos;
    private final long epochOffsetNs;
    private final LogConsumer consumer;
    private final Thread thread;
    private volatile boolean closed;

    private AsyncLogger(final Path file, final FileChannel channel, final LoggerOptions options) {
        this.file = file;
        this.capacity = options.capacity();
        this.capacityBits = Integer.numberOfTrailingZeros(capacity);
        this.mask = capacity - 1;
        this.maxPayloadLength = options.maxPayloadLength();
        // freed by the collector once nobody holds the logger: a producer racing close() never meets unmapped memory
        this.segment = Arena.ofAuto().allocate((long)HEADER_LENGTH + capacity, 128);
        this.epochNanos = options.epochNanos();
        final Instant now = Instant.now();
        this.epochOffsetNs = now.getEpochSecond() * 1_000_000_000L + now.getNano() - System.nanoTime();
        this.consumer = new LogConsumer(segment, capacity, options, channel, file, this::isClosed);
        this.thread = new Thread(consumer, options.threadName());
        thread.setDaemon(true);
    }

    /**
     * Opens (or creates) a file, appending to it, and starts the logger's thread.
     *
     * @param file the log file
     * @param options ring, payload limit, claim timeout, idle strategy, clock
     * @return the logger
     * @throws UncheckedIOException naming the file if it cannot be opened for appending
     * @throws IllegalArgumentException if the ring cannot hold four of the longest records
     */
    public static AsyncLogger open(final Path file, final LoggerOptions options) {
        if (file == null || options == null) {
            throw new IllegalArgumentException("file=" + file + " options=" + options);
        }
        final int longest = aligned(RECORD_HEADER_LENGTH + options.maxPayloadLength());
        if (4L * longest > options.capacity()) {
            throw new IllegalArgumentException("capacity=" + options.capacity() + " holds fewer than four records of "
                + "maxPayloadLength=" + options.maxPayloadLength());
        }
        final FileChannel channel;
        try {
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND);
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot open the log file " + file + ": " + ex.getMessage(), ex);
        }
        final AsyncLogger logger = new AsyncLogger(file, channel, options);
        logger.thread.start();
        return logger;
    }

    /**
     * Logs a connection event; any thread. Level {@link LogLevel#WARN} for the failures, {@link LogLevel#INFO}
     * otherwise.
     *
     * @param kind the event
     * @param channelId the channel (or server) id
     * @param a a free long (see {@link LogEvent})
     * @param b a free long
     * @return 0, {@link #DROPPED} or {@link #CLOSED}
     */
    public long connectionEvent(final LogEvent kind, final long channelId, final long a, final long b) {
        return text(levelOf(kind), kind, channelId, a, b, null);
    }

    /**
     * Logs a connection event with text (an address, a reason); any thread. The text's characters are copied as
     * bytes, those past {@code \u00ff} as {@code ?}, without allocating.
     *
     * @param kind the event
     * @param channelId the channel (or server) id
     * @param a a free long
     * @param b a free long
     * @param text the text, or null for none
     * @return 0, {@link #DROPPED} or {@link #CLOSED}
     */
    public long connectionEvent(final LogEvent kind, final long channelId, final long a, final long b,
                                final CharSequence text) {
        return text(levelOf(kind), kind, channelId, a, b, text);
    }

    /**
     * Logs a message's bytes, at {@link LogLevel#DEBUG}; any thread.
     *
     * @param channelId the channel
     * @param direction which way it went
     * @param buffer memory holding it
     * @param offset where it starts
     * @param length its length; at most {@link #maxPayloadLength()} bytes are kept
     * @return 0, {@link #DROPPED} or {@link #CLOSED}
     */
    public long message(final long channelId, final MessageDirection direction, final MemorySegment buffer,
                        final long offset, final int length) {
        return log(LogLevel.DEBUG, direction == MessageDirection.INBOUND ? LogEvent.MESSAGE_IN : LogEvent.MESSAGE_OUT,
            channelId, 0, 0, buffer, offset, length);
    }

    /**
     * Logs a record; any thread.
     *
     * @param level its level
     * @param event its event code
     * @param channelId a channel id
     * @param a a free long
     * @param b a free long
     * @param payload memory holding the payload, or null for none
     * @param offset where it starts
     * @param length its length; at most {@link #maxPayloadLength()} bytes are kept
     * @return 0, {@link #DROPPED} or {@link #CLOSED}
     */
    public long log(final LogLevel level, final LogEvent event, final long channelId, final long a, final long b,
                    final MemorySegment payload, final long offset, final int length) {
        final long claim = claim(level, event, channelId, a, b, payload == null ? -1 : length, false);
        if (claim < 0) {
            return claim;
        }
        if (payload != null) {
            MemorySegment.copy(payload, offset, segment, payloadOffset(claim), Math.min(length, maxPayloadLength));
        }
        return commit(claim);
    }

    /**
     * Claims room for a record; any thread. Write {@link #shownLength(int) shownLength(payloadLength)} bytes into
     * {@link #buffer()} at {@link #payloadOffset(long)}, then {@link #commit} or {@link #abortClaim}.
     *
     * @param level its level
     * @param event its event code
     * @param channelId a channel id
     * @param a a free long
     * @param b a free long
     * @param payloadLength the payload's full length, or -1 for a record without a payload
     * @return the claim (non-negative), {@link #DROPPED} or {@link #CLOSED}
     * @throws IllegalArgumentException for a null level or event, or a length below -1 (counted as misuse)
     */
    public long tryClaim(final LogLevel level, final LogEvent event, final long channelId, final long a, final long b,
                         final int payloadLength) {
        return claim(level, event, channelId, a, b, payloadLength, false);
    }

    /**
     * How many of a payload's bytes a record keeps.
     *
     * @param payloadLength the full length
     * @return {@code min(payloadLength, maxPayloadLength())}, and 0 for none
     */
    public int shownLength(final int payloadLength) {
        return Math.max(0, Math.min(payloadLength, maxPayloadLength));
    }

    /**
     * The ring's memory, which claimed payloads are written into.
     *
     * @return the segment
     */
    public MemorySegment buffer() {
        return segment;
    }

    /**
     * Where a claim's payload goes in {@link #buffer()}.
     *
     * @param claim a claim from {@link #tryClaim}
     * @return the offset
     */
    public long payloadOffset(final long claim) {
        return recordOffset(claim) + RECORD_HEADER_LENGTH;
    }

    /**
     * Publishes a claim to the logger's thread; any thread, once per claim.
     *
     * @param claim a claim from {@link #tryClaim}
     * @return 0, or {@link #ABANDONED} if it outlived the claim timeout (nothing of it is written)
     * @throws IllegalStateException if there is no such open claim (counted as misuse)
     */
    public long commit(final long claim) {
        return finish(claim, TYPE_RECORD);
    }

    /**
     * Gives a claim up: nothing of it is written; any thread.
     *
     * @param claim a claim from {@link #tryClaim}
     * @return 0, or {@link #ABANDONED} if it outlived the claim timeout
     * @throws IllegalStateException if there is no such open claim (counted as misuse)
     */
    public long abortClaim(final long claim) {
        return finish(claim, TYPE_PADDING);
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
     * Records dropped because the ring was full.
     *
     * @return a count
     */
    public long dropped() {
        return (long)LONG.getVolatile(segment, (long)DROPPED_OFFSET);
    }

    /**
     * Records formatted for the file so far (written once the logger's buffer is next written out).
     *
     * @return a count
     */
    public long written() {
        return (long)LONG.getVolatile(segment, (long)WRITTEN_OFFSET);
    }

    /**
     * Claims padded over after the claim timeout.
     *
     * @return a count
     */
    public long abandoned() {
        return (long)LONG.getVolatile(segment, (long)ABANDONED_OFFSET);
    }

    /**
     * Producer misuse met: a commit or abort without an open claim, a bad argument.
     *
     * @return a count
     */
    public long misused() {
        return (long)LONG.getVolatile(segment, (long)MISUSE_OFFSET);
    }

    /**
     * The file written to.
     *
     * @return the path
     */
    public Path file() {
        return file;
    }

    /**
     * Writes every record committed before this call, closes the file and stops the logger's thread; any thread,
     * idempotent. Waits for the thread, at most the claim timeout for a claim still open at the head.
     *
     * @throws UncheckedIOException naming the file if a write to it failed (the records from then on are lost)
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        LockSupport.unpark(thread); // a logger parked in its back-off need not sleep it out
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (final InterruptedException ex) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        final IOException failure = consumer.failure();
        if (failure != null) {
            throw new UncheckedIOException("cannot write the log file " + file + ": " + failure.getMessage(), failure);
        }
    }

    /** The logger's thread, for tests. */
    Thread thread() {
        return thread;
    }

    private boolean isClosed() {
        return closed;
    }

    private long text(final LogLevel level, final LogEvent event, final long channelId, final long a, final long b,
                      final CharSequence text) {
        final long claim = claim(level, event, channelId, a, b, text == null ? -1 : text.length(), text != null);
        if (claim < 0 || text == null) {
            return claim < 0 ? claim : commit(claim);
        }
        final long at = payloadOffset(claim);
        final int shown = shownLength(text.length());
        for (int i = 0; i < shown; i++) {
            final char c = text.charAt(i);
            segment.set(ValueLayout.JAVA_BYTE, at + i, c <= 0xFF ? (byte)c : (byte)'?');
        }
        return commit(claim);
    }

    private long claim(final LogLevel level, final LogEvent event, final long channelId, final long a, final long b,
                       final int payloadLength, final boolean isText) {
        if (level == null || event == null || payloadLength < -1) {
            LONG.getAndAdd(segment, (long)MISUSE_OFFSET, 1L);
            throw new IllegalArgumentException("level=" + level + " event=" + event + " payloadLength=" + payloadLength);
        }
        if (closed) {
            return CLOSED;
        }
        final long timestamp = epochNanos != null ? epochNanos.getAsLong() : epochOffsetNs + System.nanoTime();
        final int recordLength = RECORD_HEADER_LENGTH + shownLength(payloadLength);
        final int alignedLength = aligned(recordLength);
        long tail;
        int padding;
        do {
            final long head = (long)LONG.getAcquire(segment, (long)HEAD_OFFSET); // pairs with the consumer's release
            tail = (long)LONG.getVolatile(segment, (long)TAIL_OFFSET);
            final int toEnd = capacity - (int)(tail & mask);
            padding = alignedLength > toEnd ? toEnd : 0;
            if (padding + alignedLength > capacity - (tail - head)) {
                LONG.getAndAdd(segment, (long)DROPPED_OFFSET, 1L);
                return DROPPED;
            }
        } while (!LONG.compareAndSet(segment, (long)TAIL_OFFSET, tail, tail + padding + alignedLength));
        if (padding > 0) {
            LONG.setRelease(segment, recordOffset(tail), state(padding, TYPE_PADDING, lapOf(tail, capacityBits)));
        }
        final long position = tail + padding;
        final long offset = recordOffset(position);
        segment.set(ValueLayout.JAVA_LONG, offset + TIMESTAMP_OFFSET, timestamp);
        segment.set(ValueLayout.JAVA_LONG, offset + CHANNEL_ID_OFFSET, channelId);
        segment.set(ValueLayout.JAVA_LONG, offset + A_OFFSET, a);
        segment.set(ValueLayout.JAVA_LONG, offset + B_OFFSET, b);
        segment.set(ValueLayout.JAVA_SHORT, offset + EVENT_OFFSET, (short)event.ordinal());
        segment.set(ValueLayout.JAVA_BYTE, offset + LEVEL_OFFSET, (byte)level.ordinal());
        segment.set(ValueLayout.JAVA_BYTE, offset + FLAGS_OFFSET,
            (byte)(payloadLength < 0 ? 0 : isText ? FLAG_PAYLOAD | FLAG_TEXT : FLAG_PAYLOAD));
        segment.set(ValueLayout.JAVA_INT, offset + PAYLOAD_LENGTH_OFFSET, Math.max(payloadLength, 0));
        // release: the logger's thread that sees the claim sees its header
        LONG.setRelease(segment, offset, state(-recordLength, TYPE_RECORD, lapOf(position, capacityBits)));
        return position;
    }

    private long finish(final long claim, final int type) {
        if (claim < 0 || (claim & (LogRingDescriptor.ALIGNMENT - 1)) != 0) {
            LONG.getAndAdd(segment, (long)MISUSE_OFFSET, 1L);
            throw new IllegalArgumentException("claim=" + claim + " is not a claim");
        }
        final long offset = recordOffset(claim);
        final long state = stateAcquire(segment, offset);
        if (recordLength(state) < 0 && type(state) == TYPE_RECORD && lap(state) == lapOf(claim, capacityBits)
            && LONG.compareAndSet(segment, offset, state, state(-recordLength(state), type, lap(state)))) {
            return 0;
        }
        if (consumer.wasAbandoned(claim)) {
            return ABANDONED;
        }
        LONG.getAndAdd(segment, (long)MISUSE_OFFSET, 1L);
        throw new IllegalStateException("no open claim: claim=" + claim + ", state=0x" + Long.toHexString(state)
            + " (never claimed, committed or aborted already, or abandoned long ago)");
    }

    private long recordOffset(final long position) {
        return HEADER_LENGTH + (position & mask);
    }

    private static LogLevel levelOf(final LogEvent kind) {
        return kind == LogEvent.LISTEN_FAILED || kind == LogEvent.CONNECT_FAILED ? LogLevel.WARN : LogLevel.INFO;
    }
}
