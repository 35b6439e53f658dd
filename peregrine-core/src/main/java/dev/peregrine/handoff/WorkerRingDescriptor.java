package dev.peregrine.handoff;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Memory layout of a {@link WorkerRing}: one producer (the reactor thread), one consumer (a worker thread), in one
 * off-heap segment. A header of {@link #HEADER_LENGTH} bytes, each party's words on a 128-byte slot of their own,
 * then a data area of {@code capacity} bytes (a power of two).
 *
 * <pre>
 *   0: TAIL slot  | tail position (8) | records written (8) | refused full (8) | to 128 |  producer
 * 128: HEAD slot  | head position (8) | records read (8)                      | to 256 |  consumer
 * 256: data area, capacity bytes of records aligned to 8:
 *
 *   0       4       8               16
 *   +-------+-------+---------------+-------------------------------+--------+
 *   |record |type   | channel id    | payload (record length - 16)  |to align|
 *   |length |       |               |                               |        |
 *   +-------+-------+---------------+-------------------------------+--------+
 * </pre>
 *
 * <p>The producer writes whole records (length, type, channel id, payload) with plain stores and publishes them by
 * releasing its tail position; the consumer acquires the tail and reads every record below it, then releases its
 * head; the producer acquires the head before it writes over what was read. A batch (records appended, then
 * published) costs one release of the tail, a read one release of the head: the data lines pass from the producer
 * to the consumer and are never written by the consumer, so the producer's next lap finds them unmodified elsewhere
 * (the consumer used to zero what it read, which handed every line back to the producer dirty: a transfer of the
 * line's data where a read-only consumer costs only an invalidation). A
 * {@link #TYPE_PADDING} record (length and type only) fills the end of the data area when the next record does not
 * fit before the wrap; it is always published together with the record after it.
 */
public final class WorkerRingDescriptor {
    /** Offset of the tail position: the end of what the producer has published; released by the producer. */
    public static final int TAIL_OFFSET = 0;
    /** Offset of the count of records written. */
    public static final int WRITTEN_OFFSET = 8;
    /** Offset of the count of writes refused because the ring was full. */
    public static final int REFUSED_OFFSET = 16;
    /** Offset of the head position: the next byte to read; consumer only. */
    public static final int HEAD_OFFSET = 128;
    /** Offset of the count of records read. */
    public static final int READ_OFFSET = 136;
    /** Length of the header; the data area starts here. */
    public static final int HEADER_LENGTH = 256;
    /** Offset of the record length in a record. */
    public static final int LENGTH_OFFSET = 0;
    /** Offset of the record type in a record. */
    public static final int TYPE_OFFSET = 4;
    /** Offset of the channel id in a record. */
    public static final int CHANNEL_ID_OFFSET = 8;
    /** Length of a record header; the payload starts here. */
    public static final int RECORD_HEADER_LENGTH = 16;
    /** Alignment of every record. */
    public static final int ALIGNMENT = 8;
    /** Record type: a message that arrived on the channel. */
    public static final int TYPE_MESSAGE = 1;
    /** Record type: the channel was accepted or connected (no payload). */
    public static final int TYPE_OPENED = 2;
    /**
     * Record type: the channel closed; the payload is the {@code CloseReason} ordinal (4 bytes), followed, from a
     * {@link SeparatedStack}, by the detail ({@link #TYPE_LISTEN_FAILED}'s text encoding).
     */
    public static final int TYPE_CLOSED = 3;
    /** Record type: nothing; the end of the data area. */
    public static final int TYPE_PADDING = 4;
    /**
     * Record type of a {@link SeparatedStack}: a server listens; the channel id is the server id, the payload its
     * address (an int kind: 0 none, 1 an IP address, 2 an unresolved host name, 3 a Unix path; then for 1 the port
     * and the address length and bytes, for 2 and 3 the port (2 only) and the text).
     */
    public static final int TYPE_LISTENING = 5;
    /**
     * Record type of a {@link SeparatedStack}: a server could not listen; the payload is the reason as text (an int
     * count of UTF-16 chars, then the chars, cut to what the ring takes).
     */
    public static final int TYPE_LISTEN_FAILED = 6;
    /** Record type of a {@link SeparatedStack}: a channel accepted; the payload is the server id (8), the address. */
    public static final int TYPE_ACCEPTED = 7;
    /** Record type of a {@link SeparatedStack}: a channel connected; the payload is the peer's address. */
    public static final int TYPE_CONNECTED = 8;
    /** Record type of a {@link SeparatedStack}: a connect failed; the payload is the reason as text. */
    public static final int TYPE_CONNECT_FAILED = 9;
    /** Record type of a {@link SeparatedStack}: bytes were flushed; the payload is bytes written (8), buffered (8). */
    public static final int TYPE_SENT = 10;
    /** Smallest data capacity. */
    public static final int MIN_CAPACITY = 1024;
    /** Largest data capacity. */
    public static final int MAX_CAPACITY = 1 << 30;

    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private WorkerRingDescriptor() {
    }

    /**
     * Largest payload a ring of this capacity takes: a record padded to the wrap must still fit an empty ring.
     *
     * @param capacity the data capacity
     * @return bytes
     */
    public static int maxMessageLength(final int capacity) {
        return capacity / 2 - RECORD_HEADER_LENGTH;
    }

    /**
     * A record length rounded up to {@link #ALIGNMENT}.
     *
     * @param recordLength header plus payload
     * @return the room it takes
     */
    public static int aligned(final int recordLength) {
        return (recordLength + ALIGNMENT - 1) & -ALIGNMENT;
    }
}
