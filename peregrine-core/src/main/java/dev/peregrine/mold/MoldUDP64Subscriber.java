package dev.peregrine.mold;

import dev.peregrine.reactor.ErrorHandler;
import dev.peregrine.reactor.Pollable;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.udp.UdpEndpoint;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * The MoldUDP64 listener: receives a feed (multicast or unicast), checks the session of every packet,
 * delivers messages in order exactly once, skips duplicates, and recovers gaps from a re-request server.
 *
 * <p>Recovery, per the spec's flow chart and the pitfalls other implementations met: a packet starting
 * past the next expected number is a gap; nothing past it is delivered. The subscriber requests exactly
 * the messages it lacks, from the next expected up to the highest sequence number seen (at most 65 534),
 * with one request outstanding; an answer that moves it on but leaves messages missing (an answer holds
 * only what fits one packet) is followed at once by the next request, and an unanswered request is sent
 * again after the timeout. It is {@link MoldUDP64SubscriberState#SYNCHRONISED} again only once the
 * highest sequence number seen is reached. A packet of another session is dropped and counted, except
 * after the current session has ended: then the new session is followed from its message 1, so a
 * restart at 1 is not mistaken for old duplicates.
 *
 * <p>Every count and length is checked before use ({@link MoldUDP64Layout#validate}); a malformed packet
 * is counted and dropped whole. The subscriber has its own request socket, so several subscribers on one
 * host sharing the feed port each get their own answers. Nothing allocates per packet or message.
 *
 * <p>Not thread-safe: one reactor thread.
 */
public final class MoldUDP64Subscriber implements Pollable, AutoCloseable {
    private final Reactor reactor;
    private final MoldUDP64Listener listener;
    private final ErrorHandler errorHandler;
    private final UdpEndpoint feed;
    private final UdpEndpoint requests;
    private final InetSocketAddress requestServer;
    private final MemorySegment session = MemorySegment.ofArray(new byte[MoldUDP64Layout.SESSION_LENGTH]);
    private final MemorySegment request = MemorySegment.ofArray(new byte[MoldUDP64Layout.REQUEST_LENGTH]);
    private final boolean sessionFixed;
    private final long startSequence;
    private final long requestTimeoutNs;
    private boolean sessionKnown;
    private boolean endOfSessionSeen;
    private long nextExpected;
    private long highestSeen;
    private boolean requestOutstanding;
    private long requestSentNs;
    private MoldUDP64SubscriberState state = MoldUDP64SubscriberState.SYNCHRONISED;
    private long delivered;
    private long gaps;
    private long requestsSent;
    private long recovered;
    private long duplicates;
    private long malformed;
    private long otherSession;
    private long sessionsFollowed;

    /**
     * Opens the feed socket (joining the group, if any) and the request socket, and attaches both to the
     * reactor.
     *
     * @param reactor the reactor; call on its thread
     * @param options feed, group, request server, session and start
     * @param listener receives messages and state changes
     */
    public MoldUDP64Subscriber(final Reactor reactor, final MoldUDP64SubscriberOptions options, final MoldUDP64Listener listener) {
        if (reactor == null || options == null || listener == null) {
            throw new IllegalArgumentException("reactor=" + reactor + " options=" + options + " listener=" + listener);
        }
        this.reactor = reactor;
        this.listener = listener;
        this.errorHandler = reactor.errorHandler();
        this.requestServer = options.requestServer();
        this.startSequence = options.startSequence();
        this.nextExpected = startSequence;
        this.requestTimeoutNs = options.requestTimeoutNs();
        this.sessionFixed = options.session() != null;
        if (sessionFixed) {
            MemorySegment.copy(MoldUDP64Layout.session(options.session()), 0, session, 0, MoldUDP64Layout.SESSION_LENGTH);
            sessionKnown = true;
        }
        this.feed = UdpEndpoint.open(reactor, options.feed(), (e, buffer, offset, length, sender, nowNs) ->
            onPacket(buffer, offset, length, false, nowNs));
        try {
            if (options.group() != null) {
                feed.join(options.group(), options.groupInterface());
            }
            this.requests = UdpEndpoint.open(reactor, options.request(), (e, buffer, offset, length, sender, nowNs) ->
                onPacket(buffer, offset, length, true, nowNs));
        } catch (final RuntimeException ex) {
            feed.close();
            throw ex;
        }
        reactor.add(this);
    }

    /**
     * Handles one downstream packet as if it had just arrived; the endpoints call this for every datagram.
     *
     * @param buffer memory holding the packet
     * @param offset where it starts
     * @param length its length
     * @param answer whether it came from the re-request server (counts delivered messages as recovered)
     * @param nowNs the clock of this cycle
     * @return the number of messages delivered
     */
    public int onPacket(final MemorySegment buffer, final long offset, final int length, final boolean answer, final long nowNs) {
        final int count = MoldUDP64Layout.validate(buffer, offset, length);
        final long sequence = length >= MoldUDP64Layout.HEADER_LENGTH ? MoldUDP64Layout.sequence(buffer, offset) : 0;
        if (count < 0 || sequence < 1 || sequence > Long.MAX_VALUE - MoldUDP64Layout.END_OF_SESSION) {
            malformed++;
            return 0;
        }
        if (!sessionKnown) {
            adoptSession(buffer, offset);
        } else if (!MoldUDP64Layout.sessionEquals(buffer, offset, session)) {
            if (sessionFixed || !endOfSessionSeen || answer) {
                otherSession++;
                return 0;
            }
            adoptSession(buffer, offset);
            nextExpected = 1; // a new session after the old one ended: all of it is new, from message 1
            changeState(MoldUDP64SubscriberState.SYNCHRONISED);
        }
        if (nextExpected == 0) {
            nextExpected = sequence;
        }
        final boolean endOfSession = MoldUDP64Layout.count(buffer, offset) == MoldUDP64Layout.END_OF_SESSION;
        if (endOfSession && !answer) {
            endOfSessionSeen = true;
        }
        final long end = sequence + count;
        if (!answer && sequence > Math.max(nextExpected, highestSeen)) {
            gaps++;
        }
        highestSeen = Math.max(highestSeen, end);
        final long before = nextExpected;
        int deliveredNow = 0;
        if (count > 0) {
            if (sequence > nextExpected) {
                deliveredNow = 0; // past a gap: deliver nothing, it will come again in order
            } else if (end <= nextExpected) {
                duplicates += count;
            } else {
                deliveredNow = deliver(buffer, offset, sequence, count);
                if (answer) {
                    recovered += deliveredNow;
                }
            }
        }
        if (nextExpected < highestSeen) {
            if (state != MoldUDP64SubscriberState.RECOVERING) {
                changeState(MoldUDP64SubscriberState.RECOVERING);
                sendRequest(nowNs);
            } else if (!requestOutstanding || answer && nextExpected > before) {
                sendRequest(nowNs); // the answer was cut short (one packet): follow on at once
            }
        } else {
            requestOutstanding = false;
            changeState(endOfSessionSeen ? MoldUDP64SubscriberState.END_OF_SESSION : MoldUDP64SubscriberState.SYNCHRONISED);
        }
        return deliveredNow;
    }

    private int deliver(final MemorySegment buffer, final long offset, final long sequence, final int count) {
        long position = offset + MoldUDP64Layout.HEADER_LENGTH;
        int deliveredNow = 0;
        for (int i = 0; i < count; i++) {
            final int messageLength = MoldUDP64Layout.messageLength(buffer, position);
            final long messageSequence = sequence + i;
            if (messageSequence < nextExpected) {
                duplicates++;
            } else {
                nextExpected = messageSequence + 1; // first, so a throwing listener cannot cause a redelivery
                delivered++;
                deliveredNow++;
                try {
                    listener.onMessage(messageSequence, buffer, position + MoldUDP64Layout.BLOCK_HEADER_LENGTH, messageLength);
                } catch (final RuntimeException ex) {
                    errorHandler.onError(new IllegalStateException("MoldUDP64 listener failed on message " + messageSequence
                        + "; the subscriber goes on", ex));
                }
            }
            position += MoldUDP64Layout.BLOCK_HEADER_LENGTH + messageLength;
        }
        return deliveredNow;
    }

    @Override
    public int doWork(final long nowNs) {
        if (requestOutstanding && nowNs - requestSentNs >= requestTimeoutNs) {
            sendRequest(nowNs);
            return 1;
        }
        return 0;
    }

    private void sendRequest(final long nowNs) {
        requestOutstanding = true;
        requestSentNs = nowNs;
        if (requestServer == null) {
            return;
        }
        final int count = (int)Math.min(highestSeen - nextExpected, MoldUDP64Layout.MAX_MESSAGE_COUNT);
        MoldUDP64Layout.putRequest(request, 0, session, nextExpected, count);
        requestsSent++;
        requests.sendTo(request, 0, MoldUDP64Layout.REQUEST_LENGTH, requestServer);
    }

    private void adoptSession(final MemorySegment buffer, final long offset) {
        MemorySegment.copy(buffer, offset + MoldUDP64Layout.SESSION_OFFSET, session, 0, MoldUDP64Layout.SESSION_LENGTH);
        sessionKnown = true;
        if (endOfSessionSeen) {
            endOfSessionSeen = false;
            highestSeen = 0;
            requestOutstanding = false;
        }
        sessionsFollowed++;
    }

    private void changeState(final MoldUDP64SubscriberState newState) {
        if (state != newState) {
            state = newState;
            try {
                listener.onStateChange(newState, nextExpected);
            } catch (final RuntimeException ex) {
                errorHandler.onError(new IllegalStateException("MoldUDP64 listener failed on a state change", ex));
            }
        }
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
     * Gaps detected in the feed.
     *
     * @return the count
     */
    public long gaps() {
        return gaps;
    }

    /**
     * Requests sent, first tries and repeats.
     *
     * @return the count
     */
    public long requests() {
        return requestsSent;
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
     * Messages received again after delivery, and skipped.
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

    /** Closes both sockets and leaves the reactor; reactor thread only. */
    @Override
    public void close() {
        feed.close();
        requests.close();
        reactor.remove(this);
    }
}
