package dev.peregrine.handoff;

import dev.peregrine.channel.SendResult;
import dev.peregrine.channel.Transport;
import dev.peregrine.internal.CacheLinePadding;
import dev.peregrine.internal.RingMemory;
import dev.peregrine.reactor.Pollable;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.TimerHandler;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.BooleanSupplier;

import static dev.peregrine.handoff.CommandRingDescriptor.ABANDONED_CLAIMS;
import static dev.peregrine.handoff.CommandRingDescriptor.ABANDONED_CLAIMS_OFFSET;
import static dev.peregrine.handoff.CommandRingDescriptor.ABANDONED_OFFSET;
import static dev.peregrine.handoff.CommandRingDescriptor.BATCH_COUNT_OFFSET;
import static dev.peregrine.handoff.CommandRingDescriptor.BATCH_HEADER_LENGTH;
import static dev.peregrine.handoff.CommandRingDescriptor.BATCH_MESSAGE_LENGTH_OFFSET;
import static dev.peregrine.handoff.CommandRingDescriptor.CHANNEL_ID_OFFSET;
import static dev.peregrine.handoff.CommandRingDescriptor.DELIVERED_OFFSET;
import static dev.peregrine.handoff.CommandRingDescriptor.DISCARDED_OFFSET;
import static dev.peregrine.handoff.CommandRingDescriptor.FLAGS_OFFSET;
import static dev.peregrine.handoff.CommandRingDescriptor.HEADER_LENGTH;
import static dev.peregrine.handoff.CommandRingDescriptor.HEAD_CACHE_OFFSET;
import static dev.peregrine.handoff.CommandRingDescriptor.HEAD_OFFSET;
import static dev.peregrine.handoff.CommandRingDescriptor.INT;
import static dev.peregrine.handoff.CommandRingDescriptor.LONG;
import static dev.peregrine.handoff.CommandRingDescriptor.MAX_TRANSPORTS;
import static dev.peregrine.handoff.CommandRingDescriptor.MISUSE_OFFSET;
import static dev.peregrine.handoff.CommandRingDescriptor.RECORD_HEADER_LENGTH;
import static dev.peregrine.handoff.CommandRingDescriptor.REFUSED_OFFSET;
import static dev.peregrine.handoff.CommandRingDescriptor.TAIL_OFFSET;
import static dev.peregrine.handoff.CommandRingDescriptor.TRANSPORT_OFFSET;
import static dev.peregrine.handoff.CommandRingDescriptor.TYPE_ABORT;
import static dev.peregrine.handoff.CommandRingDescriptor.TYPE_CLOSE;
import static dev.peregrine.handoff.CommandRingDescriptor.TYPE_PADDING;
import static dev.peregrine.handoff.CommandRingDescriptor.TYPE_SEND;
import static dev.peregrine.handoff.CommandRingDescriptor.TYPE_SEND_BATCH;
import static dev.peregrine.handoff.CommandRingDescriptor.aligned;
import static dev.peregrine.handoff.CommandRingDescriptor.batchRecordLength;
import static dev.peregrine.handoff.CommandRingDescriptor.lap;
import static dev.peregrine.handoff.CommandRingDescriptor.lapOf;
import static dev.peregrine.handoff.CommandRingDescriptor.recordLength;
import static dev.peregrine.handoff.CommandRingDescriptor.state;
import static dev.peregrine.handoff.CommandRingDescriptor.stateAcquire;
import static dev.peregrine.handoff.CommandRingDescriptor.type;

/**
 * The reactor's own state of a {@link ReactorCommandRing}, written every drain, on a cache-line pair of its own: on
 * the line of the final fields that every producer reads per claim, each drain would cost every producer a miss.
 */
abstract class CommandRingReactorFields extends CacheLinePadding {
    long stuckPosition = -1;
    long stuckSinceNs;
    boolean headRefused;
    boolean claimTimerPending;
    int nextAbandonedSlot;
}

abstract class CommandRingPad1 extends CommandRingReactorFields {
    byte p1_00, p1_01, p1_02, p1_03, p1_04, p1_05, p1_06, p1_07, p1_08, p1_09, p1_0a, p1_0b, p1_0c, p1_0d, p1_0e, p1_0f;
    byte p1_10, p1_11, p1_12, p1_13, p1_14, p1_15, p1_16, p1_17, p1_18, p1_19, p1_1a, p1_1b, p1_1c, p1_1d, p1_1e, p1_1f;
    byte p1_20, p1_21, p1_22, p1_23, p1_24, p1_25, p1_26, p1_27, p1_28, p1_29, p1_2a, p1_2b, p1_2c, p1_2d, p1_2e, p1_2f;
    byte p1_30, p1_31, p1_32, p1_33, p1_34, p1_35, p1_36, p1_37, p1_38, p1_39, p1_3a, p1_3b, p1_3c, p1_3d, p1_3e, p1_3f;
    byte p1_40, p1_41, p1_42, p1_43, p1_44, p1_45, p1_46, p1_47, p1_48, p1_49, p1_4a, p1_4b, p1_4c, p1_4d, p1_4e, p1_4f;
    byte p1_50, p1_51, p1_52, p1_53, p1_54, p1_55, p1_56, p1_57, p1_58, p1_59, p1_5a, p1_5b, p1_5c, p1_5d, p1_5e, p1_5f;
    byte p1_60, p1_61, p1_62, p1_63, p1_64, p1_65, p1_66, p1_67, p1_68, p1_69, p1_6a, p1_6b, p1_6c, p1_6d, p1_6e, p1_6f;
    byte p1_70, p1_71, p1_72, p1_73, p1_74, p1_75, p1_76, p1_77, p1_78, p1_79, p1_7a, p1_7b, p1_7c, p1_7d, p1_7e, p1_7f;
    byte p1_80, p1_81, p1_82, p1_83, p1_84, p1_85, p1_86, p1_87;
}

/**
 * The way into a reactor's transports from other threads without garbage: a many-producer ring of encoded commands
 * (send, close, abort) in off-heap memory, drained by the reactor at the start of each duty cycle.
 *
 * <p>A producer thread:
 * <ol>
 *   <li>{@link #tryClaim} room for a message to a channel of a {@linkplain #register registered} transport;</li>
 *   <li>writes the payload in place, into {@link #buffer()} at {@link #offset(long)};</li>
 *   <li>{@link #commit}s (or {@link #abortClaim}s). {@link #offer} does the three with a copy;
 *       {@link #close(int, long)} and {@link #abort(int, long)} travel the same way.</li>
 * </ol>
 * A producer with many messages of one length for one channel claims them together with {@link #tryClaimBatch},
 * writes each at {@link #batchOffset(long, int)} and commits once: one compare-and-set of the tail and one of the
 * record's state word for the lot, where single claims pay two per message (the commit's lands on the line the
 * reactor is polling, so each costs a cache-line transfer). The reactor hands the messages over one by one, in
 * order, as if they had been claimed one after the other by that producer.
 * Nothing blocks or spins on the producer's behalf. Claims answer, as negative codes: {@link #BACK_PRESSURED} when
 * the ring is full or the transport is back-pressured, {@link #MESSAGE_TOO_LARGE}, {@link #CLOSED} for a closed ring.
 *
 * <p>The reactor hands each committed command to the transport's own {@code send}, {@code close} or {@code abort},
 * on its own thread, at most {@link CommandRingOptions#drainLimit} a cycle, in the order the claims were made: each
 * producer's commands keep their order, and what many commands send on one channel in a cycle is batched as the
 * transport batches its own sends (one TCP write). A committed command is never silently lost:
 * <ul>
 *   <li>a send its transport refuses with {@code BACK_PRESSURED} stays at the head of the ring and is retried each
 *       cycle; meanwhile the transport's flag ({@link #isBackPressured}) is set and new claims for it are refused.
 *       The flag is the reactor's verdict of its last cycle: a producer may read it clear just before it is set,
 *       and its command then waits in the ring behind the refused one (every command behind it waits too);</li>
 *   <li>a command whose channel is closed or unknown at the drain is discarded, counted ({@link #discarded()}) and
 *       reported to the reactor's error handler, at most once a second with the count since the last report.</li>
 * </ul>
 *
 * <p>A claim left uncommitted (its producer hangs or its thread ended) stalls the ring for at most
 * {@link CommandRingOptions#claimTimeoutNs} from the first cycle that found it at the head: the reactor then pads
 * over it (one compare-and-set of its state word; the producer's commit is the other), counts it
 * ({@link #abandoned()}) and goes on; a timer on the reactor's wheel wakes a reactor asleep in a blocking select for
 * it. The late {@link #commit} answers {@link #ABANDONED}; nothing of it is delivered.
 * Its producer must not write into the claim after the timeout: the room is claimed again once consumed.
 *
 * <p>A reactor sleeping in a blocking select is woken by a commit; a reactor that is not sleeping costs the commit
 * one volatile read ({@link Reactor#wakeUp()}).
 *
 * <p>Threading: {@link #tryClaim}, {@link #offset}, {@link #commit}, {@link #abortClaim}, {@link #offer},
 * {@link #close(int, long)}, {@link #abort(int, long)}, {@link #isBackPressured} and the counters are safe from any
 * thread and allocate nothing. {@link #register}, {@link #doWork} and {@link #close()} are for the reactor thread
 * (or before it starts). After {@link #close()} a producer still inside a call gets an {@link IllegalStateException}
 * from the closed memory.
 */
public final class ReactorCommandRing extends CommandRingPad1 implements Pollable, AutoCloseable {
    /** The ring has no room for the record, or the transport is back-pressured; retry later. */
    public static final long BACK_PRESSURED = SendResult.BACK_PRESSURED;
    /** The ring is closed. */
    public static final long CLOSED = SendResult.CLOSED;
    /** The message is longer than {@link #maxMessageLength()} and can never be taken. */
    public static final long MESSAGE_TOO_LARGE = SendResult.MESSAGE_TOO_LARGE;
    /** The claim outlived the claim timeout and was padded over: nothing of it is delivered. */
    public static final long ABANDONED = -10;

    private final Reactor reactor;
    private final Arena arena;
    private final MemorySegment segment;
    private final int capacity;
    private final int capacityBits;
    private final long mask;
    private final int maxMessageLength;
    private final int drainLimit;
    private final long claimTimeoutNs;
    private final CommandRingDispatcher dispatcher;
    private final BooleanSupplier committedAtHead = this::hasCommittedAtHead;
    private final TimerHandler claimTimer = this::onClaimTimer;
    private volatile int transportCount;
    private volatile boolean closed;

    /**
     * Makes a ring for a reactor and adds it to the reactor's cycle start; on the reactor thread or before it starts.
     *
     * @param reactor the reactor that drains it; its error handler gets the reports
     * @param options capacity, drain limit, claim timeout
     */
    public ReactorCommandRing(final Reactor reactor, final CommandRingOptions options) {
        this.reactor = reactor;
        this.capacity = options.capacity();
        this.capacityBits = Integer.numberOfTrailingZeros(capacity);
        this.mask = capacity - 1;
        this.maxMessageLength = CommandRingDescriptor.maxMessageLength(capacity);
        this.drainLimit = options.drainLimit();
        this.claimTimeoutNs = options.claimTimeoutNs();
        this.arena = Arena.ofShared();
        this.segment = arena.allocate((long)HEADER_LENGTH + capacity, 128);
        this.dispatcher = new CommandRingDispatcher(reactor, segment);
        for (int i = 0; i < ABANDONED_CLAIMS; i++) {
            LONG.setVolatile(segment, (long)ABANDONED_CLAIMS_OFFSET + 8L * i, -1L);
        }
        reactor.addAtCycleStart(this);
        reactor.addWakeCondition(committedAtHead);
    }

    /**
     * Registers a transport whose channels producers may address; reactor thread, before producers use its index.
     * Any {@link Transport}: TCP, UDP, shared memory. A {@code MoldUDP64Publisher} is not one (it has no channels);
     * a {@code Transport} whose {@code send} calls its {@code offer} lets the ring feed it.
     *
     * @param transport a transport of this ring's reactor
     * @return its index, from 0, for {@link #tryClaim}
     * @throws IllegalStateException past {@link CommandRingDescriptor#MAX_TRANSPORTS}
     */
    public int register(final Transport transport) {
        if (transport == null) {
            throw new IllegalArgumentException("transport=null");
        }
        final int index = transportCount;
        if (index == MAX_TRANSPORTS) {
            throw new IllegalStateException("transports=" + index + " is the most a ring serves");
        }
        dispatcher.register(index, transport);
        transportCount = index + 1; // release: a producer that reads the count sees the transport
        return index;
    }

    /**
     * Claims room for a message to a channel; any thread. Write the payload into {@link #buffer()} at
     * {@link #offset(long)}, then {@link #commit(long)} or {@link #abortClaim(long)}.
     *
     * @param transportIndex from {@link #register}
     * @param channelId the channel, as the transport names it; checked by the reactor at the drain
     * @param length the payload length
     * @return the claim (a position, non-negative), or {@link #BACK_PRESSURED}, {@link #MESSAGE_TOO_LARGE},
     *     {@link #CLOSED}; nothing is claimed then
     * @throws IllegalArgumentException for an unregistered transport index or a negative length (counted as misuse)
     */
    public long tryClaim(final int transportIndex, final long channelId, final int length) {
        checkTransport(transportIndex);
        if (length < 0) {
            countMisuse();
            throw new IllegalArgumentException("length=" + length);
        }
        if (length > maxMessageLength) {
            return MESSAGE_TOO_LARGE;
        }
        if (refusedByFlag(transportIndex)) {
            return BACK_PRESSURED;
        }
        return claim(TYPE_SEND, transportIndex, channelId, RECORD_HEADER_LENGTH + length);
    }

    /**
     * Claims room for {@code count} messages of one length to one channel, in one record; any thread. Write message
     * {@code i} into {@link #buffer()} at {@link #batchOffset(long, int) batchOffset(claim, i)}, then
     * {@link #commit(long)} once for all of them (or {@link #abortClaim(long)}). The reactor hands them to the
     * transport one by one, in order; each counts against its drain limit. A refused claim writes nothing.
     *
     * @param transportIndex from {@link #register}
     * @param channelId the channel of every message
     * @param length each message's length
     * @param count how many, from 1 to {@link #maxBatchCount(int)}
     * @return the claim (a position, non-negative), or {@link #BACK_PRESSURED} (the ring has no room for the whole
     *     batch now, or the transport is back-pressured), {@link #MESSAGE_TOO_LARGE} (more than
     *     {@link #maxBatchCount(int)}: never taken), {@link #CLOSED}; nothing is claimed then
     * @throws IllegalArgumentException for an unregistered transport index, a negative length or a count below 1
     *     (counted as misuse)
     */
    public long tryClaimBatch(final int transportIndex, final long channelId, final int length, final int count) {
        checkTransport(transportIndex);
        if (length < 0 || count < 1) {
            countMisuse();
            throw new IllegalArgumentException("length=" + length + ", count=" + count + ": a batch needs a length"
                + " from 0 and a count from 1");
        }
        if (length > maxMessageLength || batchRecordLength(length, count) > RECORD_HEADER_LENGTH + maxMessageLength) {
            return MESSAGE_TOO_LARGE;
        }
        if (refusedByFlag(transportIndex)) {
            return BACK_PRESSURED;
        }
        final long claim = claim(TYPE_SEND_BATCH, transportIndex, channelId, (int)batchRecordLength(length, count));
        if (claim >= 0) {
            // plain: the reactor reads them after the commit's compare-and-set, which orders them before it
            final long offset = recordOffset(claim);
            INT.set(segment, offset + BATCH_COUNT_OFFSET, count);
            INT.set(segment, offset + BATCH_MESSAGE_LENGTH_OFFSET, length);
        }
        return claim;
    }

    /**
     * Most messages of this length one {@link #tryClaimBatch} takes.
     *
     * @param length each message's length
     * @return a count; 0 if not even one fits a batch
     */
    public int maxBatchCount(final int length) {
        return CommandRingDescriptor.maxBatchCount(capacity, length);
    }

    /**
     * Where message {@code index} of a batch claim goes in {@link #buffer()}; the producer thread of the claim. The
     * messages follow each other at a stride of {@link CommandRingDescriptor#aligned aligned(length)}: a producer
     * filling many may take the first offset here and step by the stride.
     *
     * @param claim a claim from {@link #tryClaimBatch}, not yet committed (nor abandoned: see the claim timeout)
     * @param index from 0 to the claim's count - 1
     * @return the offset; the message's room is its length
     * @throws IllegalArgumentException if the index is outside the batch, or the claim is no batch (counted as
     *     misuse)
     */
    public long batchOffset(final long claim, final int index) {
        final long offset = checkedRecordOffset(claim);
        // plain reads of what this thread's tryClaimBatch wrote; a single claim's count is 0 (zeroed room)
        final int count = (int)INT.get(segment, offset + BATCH_COUNT_OFFSET);
        if (index < 0 || index >= count) {
            countMisuse();
            throw new IllegalArgumentException("index=" + index + " is not in the batch of claim=" + claim
                + " (count=" + count + ")");
        }
        return offset + BATCH_HEADER_LENGTH + (long)index * aligned((int)INT.get(segment,
            offset + BATCH_MESSAGE_LENGTH_OFFSET));
    }

    /**
     * The memory producers write payloads into: the whole ring. Write only between {@link #offset(long)} and the
     * claimed length.
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
    public long offset(final long claim) {
        return recordOffset(claim) + RECORD_HEADER_LENGTH;
    }

    /**
     * Publishes a claim to the reactor; any thread, once per claim.
     *
     * @param claim a claim from {@link #tryClaim}
     * @return 0, or {@link #ABANDONED} if the claim outlived the claim timeout (nothing of it is delivered)
     * @throws IllegalStateException if there is no such open claim: never made, committed or aborted already, or
     *     abandoned so long ago that the ring forgot it (counted as misuse)
     */
    public long commit(final long claim) {
        final long offset = checkedRecordOffset(claim);
        final long state = stateAcquire(segment, offset);
        if (isOpenClaim(state, claim)
            && LONG.compareAndSet(segment, offset, state, state(-recordLength(state), type(state), lap(state)))) {
            reactor.wakeUp(); // after the compare-and-set: pairs with the reactor's fenced re-check before it sleeps
            return 0;
        }
        return lostClaim(claim, state);
    }

    /**
     * Gives a claim up: the reactor skips it; any thread.
     *
     * @param claim a claim from {@link #tryClaim}
     * @return 0, or {@link #ABANDONED} if the claim outlived the claim timeout
     * @throws IllegalStateException if there is no such open claim (counted as misuse)
     */
    public long abortClaim(final long claim) {
        final long offset = checkedRecordOffset(claim);
        final long state = stateAcquire(segment, offset);
        if (isOpenClaim(state, claim)
            && LONG.compareAndSet(segment, offset, state, state(-recordLength(state), TYPE_PADDING, lap(state)))) {
            return 0;
        }
        return lostClaim(claim, state);
    }

    /**
     * Claims, copies and commits one message; any thread.
     *
     * @param transportIndex from {@link #register}
     * @param channelId the channel
     * @param source memory holding the message
     * @param sourceOffset where it starts
     * @param length its length
     * @return 0, or a negative code of {@link #tryClaim} (nothing was taken)
     */
    public long offer(final int transportIndex, final long channelId, final MemorySegment source,
                      final long sourceOffset, final int length) {
        final long claim = tryClaim(transportIndex, channelId, length);
        if (claim < 0) {
            return claim;
        }
        MemorySegment.copy(source, sourceOffset, segment, offset(claim), length);
        return commit(claim);
    }

    /**
     * Asks the reactor to close a channel ({@link Transport#close(long)}), after the commands committed before;
     * any thread. Not refused by a back-pressured transport, only by a full ring.
     *
     * @param transportIndex from {@link #register}
     * @param channelId the channel
     * @return 0, {@link #BACK_PRESSURED} (ring full) or {@link #CLOSED}
     */
    public long close(final int transportIndex, final long channelId) {
        return control(TYPE_CLOSE, transportIndex, channelId);
    }

    /**
     * Asks the reactor to abort a channel ({@link Transport#abort(long)}), after the commands committed before;
     * any thread. Not refused by a back-pressured transport, only by a full ring.
     *
     * @param transportIndex from {@link #register}
     * @param channelId the channel
     * @return 0, {@link #BACK_PRESSURED} (ring full) or {@link #CLOSED}
     */
    public long abort(final int transportIndex, final long channelId) {
        return control(TYPE_ABORT, transportIndex, channelId);
    }

    /**
     * Whether the reactor found the transport back-pressured in its last cycle; any thread. While it is, claims for
     * it answer {@link #BACK_PRESSURED}. Up to a cycle stale.
     *
     * @param transportIndex from {@link #register}
     * @return the flag
     */
    public boolean isBackPressured(final int transportIndex) {
        checkTransport(transportIndex);
        return (int)INT.getAcquire(segment, (long)FLAGS_OFFSET + 4L * transportIndex) != 0;
    }

    /**
     * Longest payload of one message.
     *
     * @return bytes
     */
    public int maxMessageLength() {
        return maxMessageLength;
    }

    /**
     * Commands handed to their transport and taken by it (closes and aborts included).
     *
     * @return a count
     */
    public long delivered() {
        return (long)LONG.getVolatile(segment, (long)DELIVERED_OFFSET);
    }

    /**
     * Committed commands discarded at the drain: channel closed or unknown, or the transport threw.
     *
     * @return a count
     */
    public long discarded() {
        return (long)LONG.getVolatile(segment, (long)DISCARDED_OFFSET);
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
     * Claims refused with {@link #BACK_PRESSURED}.
     *
     * @return a count
     */
    public long backPressured() {
        return (long)LONG.getVolatile(segment, (long)REFUSED_OFFSET);
    }

    /**
     * Producer misuse met: bad transport index, negative length, commit or abort without an open claim.
     *
     * @return a count
     */
    public long misused() {
        return (long)LONG.getVolatile(segment, (long)MISUSE_OFFSET);
    }

    /**
     * Drains up to the drain limit of committed commands into their transports; reactor thread.
     *
     * @param nowNs the cycle's clock, for the claim timeout
     * @return the records taken
     */
    @Override
    public int doWork(final long nowNs) {
        if (closed) {
            return 0;
        }
        final long head = (long)LONG.get(segment, (long)HEAD_OFFSET); // the consumer is its only writer
        long position = head;
        int work = 0;
        headRefused = false;
        // at most one lap: what this drain consumed is zeroed only at its end, so a full ring's head record, met again
        // a lap later, would be delivered twice
        while (work < drainLimit && position - head < capacity) {
            final long offset = recordOffset(position);
            final long state = stateAcquire(segment, offset); // pairs with the producer's release or compare-and-set
            if (state == 0) {
                break; // nothing yet, or a producer between its tail and its state word
            }
            final int recordLength = recordLength(state);
            if (recordLength < 0) {
                if (!claimTimedOut(position, nowNs)) {
                    break;
                }
                padOver(position, offset, state);
                continue; // padding now, or committed by a producer that won the race
            }
            final int type = type(state);
            if (type == TYPE_SEND_BATCH) {
                final int remaining = dispatcher.batchRemaining(offset, recordLength);
                final int budget = Math.min(remaining, drainLimit - work);
                final int handed = dispatcher.dispatchBatch(offset, budget, nowNs);
                work += handed;
                if (handed < remaining) {
                    headRefused = handed < budget;
                    break; // refused or out of budget: the batch stays at the head, the dispatcher knows where
                }
                dispatcher.batchDone();
                position += aligned(recordLength);
                continue;
            }
            if (type != TYPE_PADDING && !dispatcher.dispatch(type, offset, recordLength, nowNs)) {
                headRefused = true;
                break;
            }
            work++;
            position += aligned(recordLength);
        }
        dispatcher.publishDelivered();
        if (position != head) {
            zero(head, position);
            LONG.setRelease(segment, (long)HEAD_OFFSET, position); // pairs with claim's head acquire: zeroed room
        }
        return work;
    }

    /**
     * Frees the ring's memory and stops draining; reactor thread. Commands still in the ring are neither delivered
     * nor counted, and the counters go with the memory: read them before closing.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        reactor.remove(this);
        arena.close();
    }

    private long claim(final int type, final int transportIndex, final long channelId, final int recordLength) {
        if (closed) {
            return CLOSED;
        }
        final int alignedLength = aligned(recordLength);
        long tail;
        int padding;
        do {
            tail = (long)LONG.getVolatile(segment, (long)TAIL_OFFSET);
            final int toEnd = capacity - (int)(tail & mask);
            padding = alignedLength > toEnd ? toEnd : 0;
            // the cache first: on the tail's line, where the consumer's head is written every drain; any head a
            // producer read is at or behind the real one, so a claim that fits below it fits
            final long headCache = (long)LONG.getAcquire(segment, (long)HEAD_CACHE_OFFSET);
            if (padding + alignedLength > capacity - (tail - headCache)) {
                final long head = (long)LONG.getAcquire(segment, (long)HEAD_OFFSET); // pairs with doWork's release
                if (head != headCache) { // a full ring's spinning producers would otherwise write the line per try
                    LONG.setRelease(segment, (long)HEAD_CACHE_OFFSET, head); // its release passes the zeroed room on
                }
                if (padding + alignedLength > capacity - (tail - head)) {
                    LONG.getAndAdd(segment, (long)REFUSED_OFFSET, 1L);
                    return BACK_PRESSURED;
                }
            }
        } while (!LONG.compareAndSet(segment, (long)TAIL_OFFSET, tail, tail + padding + alignedLength));
        if (padding > 0) {
            LONG.setRelease(segment, recordOffset(tail), state(padding, TYPE_PADDING, lapOf(tail, capacityBits)));
        }
        final long position = tail + padding;
        final long offset = recordOffset(position);
        LONG.set(segment, offset + CHANNEL_ID_OFFSET, channelId);
        INT.set(segment, offset + TRANSPORT_OFFSET, transportIndex);
        // release: the reactor that sees the claim sees its header
        LONG.setRelease(segment, offset, state(-recordLength, type, lapOf(position, capacityBits)));
        return position;
    }

    private long control(final int type, final int transportIndex, final long channelId) {
        checkTransport(transportIndex);
        final long claim = claim(type, transportIndex, channelId, RECORD_HEADER_LENGTH);
        return claim < 0 ? claim : commit(claim);
    }

    private boolean isOpenClaim(final long state, final long claim) {
        return recordLength(state) < 0 && type(state) != TYPE_PADDING && lap(state) == lapOf(claim, capacityBits);
    }

    /** A commit or abort that did not win its claim: abandoned (the reactor recorded it before its CAS), or misuse. */
    private long lostClaim(final long claim, final long state) {
        for (int i = 0; i < ABANDONED_CLAIMS; i++) {
            if ((long)LONG.getVolatile(segment, (long)ABANDONED_CLAIMS_OFFSET + 8L * i) == claim) {
                return ABANDONED;
            }
        }
        countMisuse();
        throw new IllegalStateException("no open claim: claim=" + claim + ", state=0x" + Long.toHexString(state)
            + " (never claimed, committed or aborted already, or abandoned long ago)");
    }

    /** Whether the reactor's flag refuses claims for the transport now; counts the refusal. */
    private boolean refusedByFlag(final int transportIndex) {
        // pairs with the reactor's release of the flag: its verdict of its last cycle
        if ((int)INT.getAcquire(segment, (long)FLAGS_OFFSET + 4L * transportIndex) != 0) {
            LONG.getAndAdd(segment, (long)REFUSED_OFFSET, 1L);
            return true;
        }
        return false;
    }

    private void checkTransport(final int transportIndex) {
        if (transportIndex < 0 || transportIndex >= transportCount) {
            countMisuse();
            throw new IllegalArgumentException("transportIndex=" + transportIndex + " is not registered (transports="
                + transportCount + ")");
        }
    }

    private long checkedRecordOffset(final long claim) {
        if (claim < 0 || (claim & (CommandRingDescriptor.ALIGNMENT - 1)) != 0) {
            countMisuse();
            throw new IllegalArgumentException("claim=" + claim + " is not a claim");
        }
        return recordOffset(claim);
    }

    private void countMisuse() {
        LONG.getAndAdd(segment, (long)MISUSE_OFFSET, 1L);
    }

    private long recordOffset(final long position) {
        return HEADER_LENGTH + (position & mask);
    }

    private boolean claimTimedOut(final long position, final long nowNs) {
        if (position != stuckPosition) {
            stuckPosition = position;
            stuckSinceNs = nowNs;
        }
        if (nowNs - stuckSinceNs >= claimTimeoutNs) {
            return true;
        }
        if (!claimTimerPending) {
            // a reactor asleep in a blocking select must wake for the timeout, not only for the next commit; one
            // timer at a time, however many claims the drain catches up with
            claimTimerPending = true;
            reactor.timers().schedule(stuckSinceNs + claimTimeoutNs, claimTimer, 0);
        }
        return false;
    }

    /**
     * Takes a timed-out claim over, unless its producer commits first. The claim goes into the table before the
     * compare-and-set, so that a producer whose own compare-and-set fails after it finds it there.
     */
    private void padOver(final long position, final long offset, final long state) {
        final long slot = (long)ABANDONED_CLAIMS_OFFSET + 8L * nextAbandonedSlot;
        final long previous = (long)LONG.getVolatile(segment, slot);
        LONG.setVolatile(segment, slot, position);
        if (LONG.compareAndSet(segment, offset, state, state(-recordLength(state), TYPE_PADDING, lap(state)))) {
            nextAbandonedSlot = (nextAbandonedSlot + 1) % ABANDONED_CLAIMS;
            LONG.getAndAdd(segment, (long)ABANDONED_OFFSET, 1L);
            stuckPosition = -1;
            reactor.errorHandler().onError(new IllegalStateException("command ring of reactor " + reactor.name()
                + ": a claim stayed uncommitted past claimTimeoutNs=" + claimTimeoutNs + " and was padded over: claim="
                + position + ", transport=" + INT.get(segment, offset + TRANSPORT_OFFSET) + ", channelId="
                + LONG.get(segment, offset + CHANNEL_ID_OFFSET) + "; its late commit answers ABANDONED"));
        } else {
            LONG.setVolatile(segment, slot, previous); // the producer committed (or aborted) it in time
        }
    }

    private void zero(final long from, final long to) {
        RingMemory.zero(segment, HEADER_LENGTH, capacity, from, to);
    }

    /** Nothing to do: firing is work, so the next cycle runs at once and its drain checks the timeout. */
    private void onClaimTimer(final long timerId, final long cookie, final long nowNs) {
        claimTimerPending = false;
    }

    /** The wake condition: a committed record at the head that the transport has not just refused. */
    private boolean hasCommittedAtHead() {
        if (closed || headRefused) {
            return false;
        }
        final long head = (long)LONG.get(segment, (long)HEAD_OFFSET);
        return recordLength(stateAcquire(segment, recordOffset(head))) > 0;
    }
}
