package dev.peregrine.mold;

import dev.peregrine.internal.jfr.FrameRejectedEvent;
import dev.peregrine.internal.jfr.MoldGapDetectedEvent;
import dev.peregrine.reactor.ErrorHandler;
import dev.peregrine.reactor.NanoClock;
import dev.peregrine.reactor.Pollable;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.udp.UdpEndpoint;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The MoldUDP64 listener: receives a feed (multicast or unicast), checks the session of every packet,
 * delivers messages in order exactly once, skips duplicates, and recovers gaps from a re-request server.
 *
 * <p>Recovery, per the spec's flow chart and the pitfalls other implementations met: a packet starting
 * past the next expected number opens a gap, and nothing past a gap is delivered. Packets that arrive
 * past a gap are kept in a bounded off-heap reorder buffer ({@link MoldUDP64SubscriberOptions#reorderBuffer}),
 * so only the missing ranges are requested: one request per gap (adjacent gaps merged, at most 65 534
 * messages each) until an answer cut short (holding fewer messages than its request asked for) has shown how
 * many messages one packet holds, and then a longer gap in
 * parts of that many, one request each; several requests in flight at once (lowest first), each answered
 * request followed at once by one for what is still missing, an unanswered one sent again after a timeout
 * that follows the measured round trip of answered requests and doubles for each repeat
 * ({@link MoldUDP64SubscriberOptions#requestTimeoutNs}). When a gap is filled the buffered messages that became
 * contiguous are delivered at once. When the buffer is full a packet is dropped and its messages are
 * requested like lost ones ({@link #bufferOverflows()}). While a gap is open, the times of recovery (a gap's
 * detection and filling, a request's sending, an answer's arrival) are read from the reactor's clock for the packet
 * at hand rather than taken from the cycle's one clock read: a cycle hands on up to a receive batch of packets, each
 * with its listener calls, so by its last packet the cycle's clock can be hundreds of microseconds old, which would
 * lengthen every recovery time and round trip measured from it (and so the request timeout). The subscriber is
 * {@link MoldUDP64SubscriberState#SYNCHRONISED} again only once the highest sequence number seen is reached.
 *
 * <p>A gap that cannot be filled (the server answers with later messages only, twice, or never answers through
 * all the attempts, and for no less than those attempts take at the configured request timeout, however short the
 * measured round trip) is reported ({@link MoldUDP64Listener#onUnrecoverable}) and the subscriber becomes
 * {@link MoldUDP64SubscriberState#UNRECOVERABLE}: it never skips a gap silently, and never waits forever. A request
 * socket connected to the server hears a gone server's ICMP port unreachable: it is reported once to the reactor's
 * error handler (again only after an answer), and the requests go on as for a server that is silent.
 *
 * <p>A packet of another session is dropped and counted, except after the current session has ended and all of
 * it was delivered (a gap still open is recovered, or reported unrecoverable, first): then the new session is
 * followed from its message 1, so a restart at 1 is not mistaken for old duplicates. An answer with no message
 * in it does not count as an answer: the request is sent again after its timeout, up to the attempts.
 * Every count and length is checked before use ({@link MoldUDP64Layout#validate}); a malformed packet
 * (a truncated answer, say) is counted and dropped whole. The subscriber has its own request socket, so
 * several subscribers on one host sharing the feed port each get their own answers. Only the request server's
 * datagrams on it are taken as answers ({@link MoldUDP64SubscriberOptions#acceptAnswersOnlyFromRequestServer},
 * {@link MoldUDP64SubscriberOptions#answerAddresses}); the rest are counted ({@link #answersFromStrangers()}) and
 * dropped. As a source address can be forged, no single answer ends the subscriber: a store truncation is believed
 * only when the answer to a fresh request confirms it ({@link MoldUDP64GapReason#STORE_TRUNCATED}). Nothing
 * allocates per packet or message, recovery included.
 *
 * <p>A listener that throws, from any of its callbacks, ends the subscriber: it becomes
 * {@link MoldUDP64SubscriberState#FAILED} ({@link #failure()} names the callback and the exception), both
 * sockets and its counter slots are released and it leaves the reactor, the failure is counted ({@link #handlerFailures()}) and
 * reported to the reactor's error handler, {@link MoldUDP64Listener#onStateChange} says {@code FAILED}, and
 * nothing is delivered after it, not even the rest of the packet being delivered. A listener that cannot take
 * a message cannot be skipped past it silently. The reactor and everything else on it go on.
 *
 * <p>Not thread-safe: one reactor thread.
 */
public final class MoldUDP64Subscriber implements Pollable, AutoCloseable {
    private static final int MIN_GAP_RECORDS = 64;

    private final Reactor reactor;
    private final NanoClock clock;
    final MoldUDP64Listener listener;
    final ErrorHandler errorHandler;
    private final UdpEndpoint feed;
    final String feedLabel; // the feed's address as text, made once, for JFR events
    private final UdpEndpoint requests;
    /** The request side: which datagrams on {@link #requests} are answers, the requests and their timeouts. */
    final MoldUDP64Requester requester;
    private final MemorySegment session = MemorySegment.ofArray(new byte[MoldUDP64Layout.SESSION_LENGTH]);
    private final boolean sessionFixed;
    private final long startSequence;
    final MoldUDP64ReorderBuffer reorder;
    final MoldUDP64Gaps gaps;
    private boolean sessionKnown;
    private boolean endOfSessionSeen;
    long nextExpected;
    private long highestSeen;
    MoldUDP64SubscriberState state = MoldUDP64SubscriberState.SYNCHRONISED;
    MoldUDP64GapReason unrecoverableReason;
    long delivered;
    private long gapsDetected;
    long recovered;
    long duplicates;
    private long malformed;
    private long otherSession;
    private long sessionsFollowed;
    long bufferOverflows;
    long unrecoverable;
    long handlerFailures;
    private String failure;
    private boolean released;
    boolean closed;
    // a packet or a cycle is being handled: a close() from a listener callback leaves the reorder buffer's memory
    // to be released once it is done, as the rest of the packet or cycle may still read it
    private boolean handling;
    private final MoldUDP64SubscriberCounters counters;
    private final MoldUDP64Delivery delivery = new MoldUDP64Delivery(this);
    private final Runnable releaseCounters;

    /**
     * Opens the feed socket (joining the group, if any) and the request socket, makes the reorder buffer,
     * and attaches the sockets to the reactor.
     *
     * @param reactor the reactor; call on its thread
     * @param options feed, group, request server, session, start, recovery settings
     * @param listener receives messages and state changes
     * @throws IllegalArgumentException if an argument is null, answers are taken only from a request server whose
     *     address is the wildcard, or the request socket is connected to another address than the request server
     */
    public MoldUDP64Subscriber(final Reactor reactor, final MoldUDP64SubscriberOptions options, final MoldUDP64Listener listener) {
        if (reactor == null || options == null || listener == null) {
            throw new IllegalArgumentException("reactor=" + reactor + " options=" + options + " listener=" + listener);
        }
        this.reactor = reactor;
        this.clock = reactor.clock();
        this.listener = listener;
        this.errorHandler = reactor.errorHandler();
        final InetSocketAddress requestServer = options.requestServer();
        if (options.acceptAnswersOnlyFromRequestServer() && requestServer != null
            && requestServer.getAddress().isAnyLocalAddress() && options.answerAddresses().length == 0) {
            throw new IllegalArgumentException("acceptAnswersOnlyFromRequestServer=true requestServer=" + requestServer
                + ": a wildcard address is no sender's, so every answer would be dropped; give the server's own address"
                + " (or its addresses in answerAddresses)");
        }
        this.startSequence = options.startSequence();
        this.nextExpected = startSequence;
        final int maxRequestsInFlight = options.maxRequestsInFlight();
        this.gaps = new MoldUDP64Gaps(Math.max(MIN_GAP_RECORDS, 4 * maxRequestsInFlight), this);
        this.sessionFixed = options.session() != null;
        if (sessionFixed) {
            MemorySegment.copy(MoldUDP64Layout.session(options.session()), 0, session, 0, MoldUDP64Layout.SESSION_LENGTH);
            sessionKnown = true;
        }
        // a full buffer still takes the answers in flight: without the reserve the live feed takes every slot a
        // drained gap frees, each answer past the lowest gap is dropped, and recovery fills one gap per round trip
        this.reorder = new MoldUDP64ReorderBuffer(options.reorderBufferBytes(), options.reorderPacketLength(),
            maxRequestsInFlight);
        UdpEndpoint opened = null;
        try {
            // an unset bind address is the wildcard of the peer's family: the group's, or for a unicast feed the request
            // server's (the publisher's own, as a rule; :: hears IPv4 too, so the guess costs an IPv4 feed nothing)
            final InetSocketAddress requestServerAddress = options.requestServer();
            final InetAddress requestServerHost = requestServerAddress == null ? null : requestServerAddress.getAddress();
            opened = UdpEndpoint.open(reactor, options.feed(), options.group() != null ? options.group() : requestServerHost,
                new MoldUDP64PacketHandler(this, false));
            if (options.group() != null) {
                opened.join(options.group(), options.groupInterface());
            }
            this.requests = UdpEndpoint.open(reactor, options.request(), requestServerHost, new MoldUDP64PacketHandler(this, true));
            final InetSocketAddress connected = requests.remoteAddress();
            if (connected != null && requestServer != null && !connected.equals(requestServer)) {
                requests.close();
                // the JDK refuses a send to another address than the connected one by throwing, from the cycle asking
                throw new IllegalArgumentException("request remoteAddress=" + connected + " requestServer=" + requestServer
                    + ": a request socket connected elsewhere cannot send requests to the server; connect it to the"
                    + " request server, or not at all");
            }
        } catch (final RuntimeException ex) {
            if (opened != null) {
                opened.close();
            }
            reorder.close();
            throw ex;
        }
        this.feed = opened;
        this.feedLabel = opened.localAddress().toString();
        this.requester = new MoldUDP64Requester(this, clock, errorHandler, options, gaps, session, requests);
        this.counters = new MoldUDP64SubscriberCounters(reactor.counters(), "mold=" + feedLabel);
        this.releaseCounters = counters::close;
        reactor.addReleaseHook(releaseCounters); // a reactor closed first still gets the slots back
        reactor.add(this);
    }

    /**
     * Handles one downstream packet as if it had just arrived; the endpoints call this for every datagram. A packet
     * handed in here is taken as it is: the check of an answer's sender
     * ({@link MoldUDP64SubscriberOptions#acceptAnswersOnlyFromRequestServer}) is made before this call, on the request
     * socket, so a caller that passes {@code answer = true} vouches that the packet came from the request server.
     *
     * @param buffer memory holding the packet
     * @param offset where it starts
     * @param length its length
     * @param answer whether it came from the re-request server (counts delivered messages as recovered)
     * @param nowNs the clock of this cycle
     * @return the number of messages delivered, from this packet and from the reorder buffer
     */
    public int onPacket(final MemorySegment buffer, final long offset, final int length, final boolean answer, final long nowNs) {
        if (ended()) {
            return 0;
        }
        handling = true;
        final int deliveredNow;
        try {
            deliveredNow = handlePacket(buffer, offset, length, answer, nowNs);
        } finally {
            handling = false;
        }
        if (ended()) {
            releaseMemory(); // the listener failed or closed inside: the reorder buffer is no longer read once the packet is done
        }
        return deliveredNow;
    }

    private int handlePacket(final MemorySegment buffer, final long offset, final int length, final boolean answer,
        final long nowNs) {
        final int count = MoldUDP64Layout.validate(buffer, offset, length);
        final long sequence = length >= MoldUDP64Layout.HEADER_LENGTH ? MoldUDP64Layout.sequence(buffer, offset) : 0;
        if (count < 0 || sequence < 1 || sequence > Long.MAX_VALUE - MoldUDP64Layout.END_OF_SESSION) {
            malformed++;
            if (FrameRejectedEvent.enabled()) {
                FrameRejectedEvent.emit("moldudp64", 0, null, (answer ? requests : feed).localAddress(),
                    malformedReason(count, sequence, length));
            }
            return 0;
        }
        if (state == MoldUDP64SubscriberState.UNRECOVERABLE) {
            return 0;
        }
        if (!sessionKnown) {
            adoptSession(buffer, offset);
        } else if (!MoldUDP64Layout.sessionEquals(buffer, offset, session)) {
            // a new session is followed only once the old one is complete: a gap of the old one still open is
            // recovered (or reported unrecoverable) first, never dropped with it
            if (sessionFixed || !endOfSessionSeen || answer || nextExpected < highestSeen) {
                otherSession++;
                return 0;
            }
            adoptSession(buffer, offset);
            nextExpected = 1; // a new session after the old one ended: all of it is new, from message 1
            delivery.changeState(MoldUDP64SubscriberState.SYNCHRONISED);
            if (ended()) {
                return 0;
            }
        }
        if (nextExpected == 0) {
            nextExpected = sequence;
        }
        if (!answer && MoldUDP64Layout.count(buffer, offset) == MoldUDP64Layout.END_OF_SESSION) {
            endOfSessionSeen = true;
        }
        final long end = sequence + count;
        final long known = Math.max(highestSeen, nextExpected);
        // recovery is timed from this packet's own clock read: the cycle's may be a receive batch old by now
        final long eventNs = sequence > known || gaps.count > 0 ? clock.nanoTime() : nowNs;
        if (sequence > known) {
            gaps.add(known, sequence, eventNs);
            if (!answer) {
                gapsDetected++;
                MoldGapDetectedEvent.emit(feedLabel, known, sequence - known);
            }
        }
        highestSeen = Math.max(known, end);
        int deliveredNow = 0;
        if (count > 0) {
            if (sequence <= nextExpected) {
                if (end <= nextExpected) {
                    duplicates += count;
                } else {
                    deliveredNow = delivery.deliver(buffer, offset, sequence, count, answer);
                }
            } else {
                // a message already held is no evidence: a gap may cover held messages (a full gap list merges new ground
                // into its last gap), and a late copy of an answer that filled one lands inside that gap
                if (answer && gaps.count > 0 && !reorder.contains(sequence)) {
                    final int inside = gaps.strictlyInside(sequence);
                    if (inside >= 0) { // asked from the gap's start, answered from later: the server may lack the start
                        if (gaps.suspectTruncated[inside]) { // a second time, after a fresh request: believed
                            delivery.giveUp(gaps.from[inside], sequence - gaps.from[inside], MoldUDP64GapReason.STORE_TRUNCATED);
                        } else {
                            requester.suspectTruncated(inside);
                        }
                        return 0;
                    }
                }
                delivery.keep(buffer, offset, length, sequence, count, known, answer, eventNs);
            }
            if (ended()) {
                return deliveredNow;
            }
        }
        if (answer && count > 0 && gaps.count > 0) { // an empty answer answers nothing: not one, nor a reset of the attempts
            final int answered = gaps.inFlightFrom(sequence);
            if (answered >= 0) {
                requester.answered(answered, count, eventNs);
            }
        }
        if (reorder.messages() > 0) {
            deliveredNow += delivery.drain();
        }
        if (gaps.count > 0 && !ended()) {
            gaps.trimBelow(nextExpected, eventNs);
        }
        if (ended()) {
            return deliveredNow;
        }
        if (nextExpected >= highestSeen) {
            delivery.changeState(endOfSessionSeen ? MoldUDP64SubscriberState.END_OF_SESSION : MoldUDP64SubscriberState.SYNCHRONISED);
        } else {
            delivery.changeState(MoldUDP64SubscriberState.RECOVERING);
            if (!ended()) {
                requester.issueRequests();
            }
        }
        return deliveredNow;
    }

    void fail(final String detail) {
        failure = detail;
        state = MoldUDP64SubscriberState.FAILED;
        feed.close();
        requests.close();
        reactor.remove(this);
        // an application may drop a failed subscriber without close(): its slots go back to the shared counters file now
        reactor.removeReleaseHook(releaseCounters);
        counters.close();
        try {
            listener.onStateChange(MoldUDP64SubscriberState.FAILED, nextExpected);
        } catch (final Throwable ex) {
            handlerFailures++;
            errorHandler.onError(new IllegalStateException("MoldUDP64 listener failed in onStateChange(FAILED)"
                + "; the subscriber is FAILED already, the reactor goes on", ex));
        }
    }

    /** Reports a filled gap to the listener; the gap list calls this. */
    void gapFilled(final long fromSequence, final long count, final long nanos) {
        delivery.gapFilled(fromSequence, count, nanos);
    }

    /** A gap cannot be filled: the requester calls this ({@link MoldUDP64Delivery#giveUp}). */
    void giveUp(final long from, final long count, final MoldUDP64GapReason reason) {
        delivery.giveUp(from, count, reason);
    }

    void releaseMemory() {
        if (!released) {
            released = true;
            reorder.close();
        }
    }

    /** Whether the subscriber delivers nothing more: its listener failed, or it was closed (from a callback, say). */
    boolean ended() {
        return closed || state == MoldUDP64SubscriberState.FAILED;
    }

    @Override
    public int doWork(final long nowNs) {
        // the fields are published once per cycle, off the per-message path
        counters.publish(nextExpected, gapsDetected, requester.requestsSent(), recovered, duplicates, malformed,
            state.ordinal(), requester.answersFromStrangers());
        if (gaps.count == 0 || state == MoldUDP64SubscriberState.UNRECOVERABLE || state == MoldUDP64SubscriberState.FAILED
            || !requester.due(nowNs)) {
            return 0; // a busy feed runs many cycles between two timeouts: they skip the scan
        }
        return requester.onTimeouts();
    }

    private static String malformedReason(final int count, final long sequence, final int length) {
        final String packet = "packet of " + length + " bytes ";
        return switch (count) {
            case MoldUDP64Layout.TOO_SHORT -> packet + "is shorter than the header";
            case MoldUDP64Layout.TRUNCATED -> packet + "has a message block running past its end";
            case MoldUDP64Layout.TRAILING_BYTES -> packet + "has bytes after its last message block";
            default -> packet + "has sequence number " + sequence + " out of range";
        };
    }

    private void adoptSession(final MemorySegment buffer, final long offset) {
        MemorySegment.copy(buffer, offset + MoldUDP64Layout.SESSION_OFFSET, session, 0, MoldUDP64Layout.SESSION_LENGTH);
        sessionKnown = true;
        if (endOfSessionSeen) {
            endOfSessionSeen = false;
            highestSeen = 0;
            gaps.clear();
            reorder.clear();
            requester.newSession(); // it may be served by another server, or with other packet sizes
        }
        sessionsFollowed++;
    }

    /**
     * The current state.
     *
     * @return the state
     */
    public MoldUDP64SubscriberState state() {
        return state;
    }

    /**
     * The sequence number of the next message to deliver (0 before the first packet when starting from
     * the next message).
     *
     * @return the number
     */
    public long nextExpected() {
        return nextExpected;
    }

    /**
     * One past the highest sequence number known to exist.
     *
     * @return the number
     */
    public long highestSeen() {
        return highestSeen;
    }

    /**
     * The session followed, trailing spaces removed; allocates.
     *
     * @return the name, or null before the first packet
     */
    public String session() {
        return sessionKnown ? MoldUDP64Layout.sessionName(session, 0) : null;
    }

    /**
     * Messages delivered.
     *
     * @return the count
     */
    public long delivered() {
        return delivered;
    }

    /**
     * Gaps detected in the feed (a packet or heartbeat past the highest sequence number seen).
     *
     * @return the count
     */
    public long gaps() {
        return gapsDetected;
    }

    /**
     * Requests sent, first tries and repeats.
     *
     * @return the count
     */
    public long requests() {
        return requester.requestsSent();
    }

    /**
     * Requests sent again after a timeout (included in {@link #requests()}).
     *
     * @return the count
     */
    public long retries() {
        return requester.retries();
    }

    /**
     * Gaps with a request in flight now.
     *
     * @return the count
     */
    public int requestsInFlight() {
        return gaps.inFlightCount();
    }

    /**
     * Gaps open now (missing ranges, after merging adjacent ones).
     *
     * @return the count
     */
    public int openGaps() {
        return gaps.count;
    }

    /**
     * Gaps filled so far (each one reported to {@link MoldUDP64Listener#onGapFilled}).
     *
     * @return the count
     */
    public long gapsFilled() {
        return gaps.filled;
    }

    /**
     * The recovery latency of the last gap filled: from its detection to the arrival of its last message.
     *
     * @return nanoseconds, 0 before the first
     */
    public long lastRecoveryNs() {
        return gaps.lastFillNs;
    }

    /**
     * Messages held in the reorder buffer now.
     *
     * @return the count
     */
    public int reorderBufferMessages() {
        return reorder.messages();
    }

    /**
     * Bytes of the packets held in the reorder buffer now.
     *
     * @return bytes
     */
    public long reorderBufferBytesUsed() {
        return reorder.bytesUsed();
    }

    /**
     * Most bytes of packets the reorder buffer held at once.
     *
     * @return bytes
     */
    public long reorderBufferBytesPeak() {
        return reorder.bytesPeak();
    }

    /**
     * Room in the reorder buffer: its packet slots times their length.
     *
     * @return bytes
     */
    public long reorderBufferCapacity() {
        return reorder.capacity();
    }

    /**
     * Packets that arrived past a gap and could not be kept (the reorder buffer full, the packet longer
     * than a slot, or too far ahead for its index): dropped, their messages requested like lost ones.
     *
     * @return the count
     */
    public long bufferOverflows() {
        return bufferOverflows;
    }

    /**
     * Gaps given up: 0, or 1 once the subscriber is {@link MoldUDP64SubscriberState#UNRECOVERABLE}.
     *
     * @return the count
     */
    public long unrecoverable() {
        return unrecoverable;
    }

    /**
     * Why the subscriber is {@link MoldUDP64SubscriberState#UNRECOVERABLE}.
     *
     * @return the reason, or null while it is not
     */
    public MoldUDP64GapReason unrecoverableReason() {
        return unrecoverableReason;
    }

    /**
     * Times the listener threw; the first made the subscriber {@link MoldUDP64SubscriberState#FAILED}, and each
     * went to the reactor's error handler.
     *
     * @return the count
     */
    public long handlerFailures() {
        return handlerFailures;
    }

    /**
     * Why the subscriber is {@link MoldUDP64SubscriberState#FAILED}: the callback that threw and the exception.
     *
     * @return the detail, or null while it is not
     */
    public String failure() {
        return failure;
    }

    /**
     * Messages delivered from re-request answers.
     *
     * @return the count
     */
    public long recovered() {
        return recovered;
    }

    /**
     * Messages received again (after delivery, or while held in the reorder buffer), and skipped.
     *
     * @return the count
     */
    public long duplicates() {
        return duplicates;
    }

    /**
     * Packets dropped as malformed (short, truncated, trailing bytes, sequence number 0).
     *
     * @return the count
     */
    public long malformed() {
        return malformed;
    }

    /**
     * Packets dropped because they belong to another session.
     *
     * @return the count
     */
    public long otherSession() {
        return otherSession;
    }

    /**
     * Datagrams dropped on the request socket because they came from another address or port than the request
     * server's ({@link MoldUDP64SubscriberOptions#acceptAnswersOnlyFromRequestServer}, on by default); always 0 with
     * that option off.
     *
     * @return the count
     */
    public long answersFromStrangers() {
        return requester.answersFromStrangers();
    }

    /**
     * Answers that started past the start of the gap they fell in: each was dropped and the gap asked for again, and
     * only a second one after that request ended the subscriber ({@link MoldUDP64GapReason#STORE_TRUNCATED}).
     *
     * @return the count
     */
    public long truncationSuspicions() {
        return requester.truncationSuspicions();
    }

    /**
     * Sessions followed so far (1 after the first packet).
     *
     * @return the count
     */
    public long sessionsFollowed() {
        return sessionsFollowed;
    }

    /**
     * The feed socket, e.g. for its port.
     *
     * @return the endpoint
     */
    public UdpEndpoint feedEndpoint() {
        return feed;
    }

    /**
     * The subscriber's own request socket.
     *
     * @return the endpoint
     */
    public UdpEndpoint requestEndpoint() {
        return requests;
    }

    /**
     * Closes both sockets, leaves the reactor and frees the reorder buffer; reactor thread only. Idempotent. Called
     * from a listener callback, it ends the delivery: nothing more is delivered, not even the rest of the packet at
     * hand, and the reorder buffer is freed once that packet is done with.
     */
    @Override
    public void close() {
        closed = true;
        feed.close();
        requests.close();
        reactor.remove(this);
        if (!handling) {
            releaseMemory();
        }
        reactor.removeReleaseHook(releaseCounters);
        counters.close();
    }
}
