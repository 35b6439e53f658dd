package dev.peregrine.mold;

import dev.peregrine.internal.jfr.FrameRejectedEvent;
import dev.peregrine.reactor.ErrorHandler;
import dev.peregrine.reactor.NanoClock;
import dev.peregrine.udp.UdpEndpoint;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;

/**
 * The request side of a {@link MoldUDP64Subscriber}, on its own request socket:
 * <ul>
 *   <li>which datagrams on that socket are answers: with
 *   {@link MoldUDP64SubscriberOptions#acceptAnswersOnlyFromRequestServer} only the request server's, the rest
 *   counted and dropped (the first one reported);</li>
 *   <li>the requests for the open gaps ({@link MoldUDP64Gaps}): the lowest first, as many in flight as allowed, a long
 *   gap in parts of what an answer cut short showed one packet holds;</li>
 *   <li>their timeouts, which follow the measured round trip ({@link MoldUDP64RequestTimeout}): a request sent again,
 *   or its gap given up after the attempts (the subscriber reports it);</li>
 *   <li>an unreachable request server (ICMP port unreachable on a connected socket), reported once until an answer.</li>
 * </ul>
 * What an answer brings is the subscriber's to deliver; this class hears of it through {@link #answered}.
 *
 * <p>Not thread-safe: the subscriber's reactor thread. Allocates nothing after construction.
 */
final class MoldUDP64Requester {
    private final MoldUDP64Subscriber subscriber;
    private final NanoClock clock;
    private final ErrorHandler errorHandler;
    private final MoldUDP64Gaps gaps;
    /** The subscriber's session: its bytes change when it follows a new one. */
    private final MemorySegment session;
    private final UdpEndpoint requests;
    private final InetSocketAddress requestServer;
    /** Datagrams on the request socket from anyone but {@link #requestServer} are dropped, not taken as answers. */
    private final boolean answersOnlyFromRequestServer;
    /** Further addresses the request server may answer from, at its port. */
    private final InetAddress[] answerAddresses;
    private final MemorySegment request = MemorySegment.ofArray(new byte[MoldUDP64Layout.REQUEST_LENGTH]);
    private final MoldUDP64RequestTimeout timeout;
    private final int requestAttempts;
    /** A gap without an answer is given up no sooner than this after its first request: the attempts' configured waits. */
    private final long giveUpNs;
    private final int maxRequestsInFlight;
    /** No request in flight times out before this: {@link MoldUDP64Subscriber#doWork} skips the scan until then. */
    private long nextTimeoutNs;
    /**
     * Most messages an answer cut short carried (it held fewer than its request asked for, so a packet held no
     * more): how much of a long gap one request asks for; 0 until such an answer, and again in a new session.
     */
    private int answerMessages;
    private long requestsSent;
    private long retries;
    private long answersFromStrangers;
    private long truncationSuspicions;
    /** The first stranger on the request socket went to the error handler; the others are counted only. */
    private boolean strangerReported;
    /** The request socket's ICMP port-unreachable count when last looked at. */
    private long requestServerUnreachable;
    /** An unreachable request server was reported, and no answer has come since. */
    private boolean unreachableReported;

    MoldUDP64Requester(final MoldUDP64Subscriber subscriber, final NanoClock clock, final ErrorHandler errorHandler,
        final MoldUDP64SubscriberOptions options, final MoldUDP64Gaps gaps, final MemorySegment session,
        final UdpEndpoint requests) {
        this.subscriber = subscriber;
        this.clock = clock;
        this.errorHandler = errorHandler;
        this.gaps = gaps;
        this.session = session;
        this.requests = requests;
        this.requestServer = options.requestServer();
        this.answersOnlyFromRequestServer = options.acceptAnswersOnlyFromRequestServer();
        this.answerAddresses = options.answerAddresses();
        this.timeout = new MoldUDP64RequestTimeout(options.requestTimeoutNs(), options.maxRequestTimeoutNs());
        this.requestAttempts = options.requestAttempts();
        this.giveUpNs = timeout.configuredWaitsNs(requestAttempts);
        this.maxRequestsInFlight = options.maxRequestsInFlight();
    }

    /**
     * Whether a datagram on the request socket is taken as an answer; a stranger's is counted and dropped here.
     */
    boolean accepts(final InetSocketAddress sender, final int length) {
        if (answersOnlyFromRequestServer && !fromRequestServer(sender)) {
            dropStranger(sender, length);
            return false;
        }
        return true;
    }

    /**
     * Whether a datagram on the request socket came from the request server: its port and address compared as
     * values, since the JDK hands the sender over as an object of its own; nothing is allocated.
     */
    private boolean fromRequestServer(final InetSocketAddress sender) {
        if (requestServer == null || sender.getPort() != requestServer.getPort()) {
            return false;
        }
        final InetAddress address = sender.getAddress();
        if (requestServer.getAddress().equals(address)) {
            return true;
        }
        for (final InetAddress answerAddress : answerAddresses) {
            if (answerAddress.equals(address)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A stranger's datagram on the request socket: dropped unread and counted. Only the first is reported to the error
     * handler, so that a flood costs neither a report nor an allocation each, while a server answering from an address
     * or port other than the one configured (a wildcard-bound server on a host of several addresses) is told at once.
     */
    private void dropStranger(final InetSocketAddress sender, final int length) {
        answersFromStrangers++;
        if (FrameRejectedEvent.enabled()) {
            FrameRejectedEvent.emit("moldudp64", 0, sender, requests.localAddress(), "datagram of " + length
                + " bytes on the request socket is not from the request server " + requestServer);
        }
        if (!strangerReported) {
            strangerReported = true;
            errorHandler.onError(new IOException("MoldUDP64 request socket " + requests.localAddress()
                + " dropped a datagram from " + sender + ": not the request server " + requestServer
                + " (acceptAnswersOnlyFromRequestServer=true); further ones are counted only (answersFromStrangers),"
                + " the subscriber goes on"));
        }
    }

    /**
     * An answer of {@code count} messages (at least 1) came for the request in flight of gap {@code answered}: the
     * server answers, a short answer shows what one packet holds, and the round trip feeds the timeout.
     */
    void answered(final int answered, final int count, final long eventNs) {
        unreachableReported = false; // the server answers: a later ICMP is news
        // only an answer cut short shows what one packet holds: one that held all it was asked (a short gap,
        // say) would make every longer gap asked for in parts that small, a request per few messages
        if (count < gaps.requestedCount[answered]) {
            answerMessages = Math.max(answerMessages, count);
        }
        final long roundTripNs = gaps.answered(answered, eventNs);
        if (roundTripNs >= 0) {
            timeout.sample(roundTripNs);
        }
    }

    /** A new session: it may be served by another server, or with other packet sizes. */
    void newSession() {
        answerMessages = 0;
    }

    /** Whether a request in flight may have timed out by {@code nowNs}: until then the cycle skips the scan. */
    boolean due(final long nowNs) {
        return nowNs - nextTimeoutNs >= 0;
    }

    /**
     * Sends again each request in flight whose timeout passed, or gives its gap up once the attempts and their
     * configured waits are spent, then asks for the gaps without a request.
     *
     * @return the work done
     */
    int onTimeouts() {
        final long timeNs = clock.nanoTime(); // a request's time is its own: the cycle's clock may be a receive batch old
        if (requests.portUnreachable() != requestServerUnreachable) {
            reportUnreachable();
        }
        int work = 0;
        boolean waiting = false;
        long earliest = timeNs;
        for (int i = 0; i < gaps.count; i++) {
            if (!gaps.inFlight[i]) {
                continue;
            }
            if (timeNs - gaps.sentNs[i] >= timeout.waitNs(gaps.attempts[i])) {
                // the waits follow the measured round trip, which may be tens of microseconds: the attempts alone would
                // give a gap up within a millisecond of silence (a collection, a rate limit, a restart of the server)
                if (gaps.attempts[i] >= requestAttempts && timeNs - gaps.firstSentNs[i] >= giveUpNs) {
                    subscriber.giveUp(gaps.from[i], gaps.to[i] - gaps.from[i],
                        requestServer == null ? MoldUDP64GapReason.NO_REQUEST_SERVER : MoldUDP64GapReason.NO_ANSWER);
                    if (subscriber.state() == MoldUDP64SubscriberState.FAILED) {
                        subscriber.releaseMemory(); // no packet is being handled: nothing reads the reorder buffer any more
                    }
                    return work + 1;
                }
                retries++;
                sendRequest(i, timeNs);
                work++;
            }
            final long due = gaps.sentNs[i] + timeout.waitNs(gaps.attempts[i]);
            if (!waiting || due - earliest < 0) {
                earliest = due;
                waiting = true;
            }
        }
        nextTimeoutNs = earliest; // nothing waiting: look again next cycle
        return work + issueRequests();
    }

    /**
     * A connected request socket heard an ICMP port unreachable: nothing listens at the request server's port. Said
     * once until an answer comes; the requests go on per the timeouts (the server may come back), and a gap without
     * an answer is given up as {@link MoldUDP64GapReason#NO_ANSWER} after the attempts, as for a silent server.
     */
    private void reportUnreachable() {
        requestServerUnreachable = requests.portUnreachable();
        if (!unreachableReported) {
            unreachableReported = true;
            errorHandler.onError(new PortUnreachableException("MoldUDP64 request server " + requestServer
                + " is unreachable from request socket " + requests.localAddress() + " (ICMP port unreachable: nothing"
                + " listens there); requests go on per the timeouts, a gap without an answer is given up after "
                + requestAttempts + " attempts"));
        }
    }

    /**
     * Asks for the lowest gaps without a request in flight, as far as the in-flight bound allows. Once an
     * answer has shown how many messages one holds, a longer gap is asked for in parts of that many, one
     * request each, so that its answers come back together rather than one per round trip. The requests are
     * timed from a clock read of their own: they may follow a long delivery from the reorder buffer.
     */
    int issueRequests() {
        int inFlight = gaps.inFlightCount();
        int sent = 0;
        long sendNs = 0;
        for (int i = 0; i < gaps.count && inFlight < maxRequestsInFlight; i++) {
            if (!gaps.inFlight[i]) {
                if (answerMessages > 0 && gaps.to[i] - gaps.from[i] > answerMessages && !gaps.full()) {
                    gaps.splitPart(i, gaps.from[i] + answerMessages);
                }
                if (sent == 0) {
                    sendNs = clock.nanoTime();
                }
                sendRequest(i, sendNs);
                inFlight++;
                sent++;
            }
        }
        return sent;
    }

    private void sendRequest(final int gap, final long nowNs) {
        final long from = gaps.from[gap];
        gaps.inFlight[gap] = true;
        gaps.sentNs[gap] = nowNs;
        gaps.requestedFrom[gap] = from;
        if (++gaps.attempts[gap] == 1) {
            gaps.firstSentNs[gap] = nowNs;
        }
        final int count = (int)Math.min(gaps.to[gap] - from, MoldUDP64Layout.MAX_MESSAGE_COUNT);
        // a repeat may ask for more than an earlier copy (the gap grew): an answer is cut short only below them all
        gaps.requestedCount[gap] = gaps.attempts[gap] == 1 ? count : Math.min(gaps.requestedCount[gap], count);
        final long due = nowNs + timeout.waitNs(gaps.attempts[gap]);
        if (due - nextTimeoutNs < 0) {
            nextTimeoutNs = due;
        }
        if (requestServer == null) {
            return;
        }
        MoldUDP64Layout.putRequest(request, 0, session, from, count);
        requestsSent++;
        requests.sendTo(request, 0, MoldUDP64Layout.REQUEST_LENGTH, requestServer);
    }

    /**
     * An answer started past gap {@code gap}'s start. One datagram is no evidence (anyone can forge its source): it is
     * dropped, counted, and the gap asked for again at once, so that only the answer to that later request can
     * confirm the truncation ({@link MoldUDP64GapReason#STORE_TRUNCATED}).
     */
    void suspectTruncated(final int gap) {
        truncationSuspicions++;
        gaps.suspectTruncated[gap] = true;
        sendRequest(gap, clock.nanoTime());
    }

    long requestsSent() {
        return requestsSent;
    }

    long retries() {
        return retries;
    }

    long answersFromStrangers() {
        return answersFromStrangers;
    }

    long truncationSuspicions() {
        return truncationSuspicions;
    }
}
