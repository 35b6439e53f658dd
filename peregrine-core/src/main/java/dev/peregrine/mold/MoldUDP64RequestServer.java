package dev.peregrine.mold;

import dev.peregrine.channel.CloseReason;
import dev.peregrine.counters.Counter;
import dev.peregrine.counters.CounterTypes;
import dev.peregrine.reactor.Pollable;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.udp.DatagramHandler;
import dev.peregrine.udp.UdpEndpoint;
import dev.peregrine.udp.UdpOptions;

import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * The MoldUDP64 re-request server: answers each well-formed request for its session with one downstream
 * packet, unicast to the request's source address and port, holding as many of the requested messages as
 * fit whole (a large count is capped, never rejected). A request that starts before the oldest message the
 * store keeps is answered with the requested messages it still has, from its oldest on (the spec's "only
 * what it has"): a listener sees from the answer's first sequence number that the start is gone. Requests
 * that are malformed, of another session, for messages it does not have, or over a source's rate are
 * dropped and counted: the spec has no negative answer, and one 20-byte request must never pull more than
 * one packet (amplification). Each reactor cycle serves up to {@link UdpOptions#receiveBatch} requests.
 *
 * <p>The rate limit is a cell-rate algorithm per source host: at most {@code answersPerSecond} on average, with
 * bursts of {@code burst}. It caps the answers sent towards one host, so it is keyed on the request's source address
 * alone, whatever the port: the listeners of one host (each with its own request socket) share one budget.
 *
 * <ul>
 *   <li>A source is an IPv4 address, or an IPv6 address's /64 (one subscriber's network: a host there may use any
 *       source in it). An IPv4-mapped IPv6 source is the IPv4 address it is.</li>
 *   <li>Sources share a fixed table of budgets through a hash keyed by a random per-server key
 *       ({@link SecureRandom}, drawn at construction): an attacker cannot pick a source whose budget is a victim's.</li>
 * </ul>
 *
 * <p>A request over its source's budget is deferred, not dropped ({@link #deferred()}). It waits in a bounded queue,
 * made up front, and is answered when the budget allows, oldest first, from {@link #doWork}. Each source may have
 * {@code deferredPerSource} requests waiting, so one host cannot fill the queue. A request for the same range from
 * the same source as one that waits is merged into it ({@link #merged()}). Only a request that finds the queue, or
 * its source's share, full is dropped ({@link #rateLimited()}). A listener that has one request in flight and asks
 * again only after a long timeout (Nassau's does) thus never loses a request to a burst of its own.
 *
 * <p>Not thread-safe: one reactor thread, the same one that appends to the store.
 */
public final class MoldUDP64RequestServer implements Pollable, AutoCloseable {
    /** Requests that may wait for their source's budget, by default. */
    public static final int DEFAULT_DEFERRED_REQUESTS = 1024;
    /** Requests of one source that may wait, by default. */
    public static final int DEFAULT_DEFERRED_PER_SOURCE = 64;
    private static final int RATE_TABLE_SIZE = 1024;
    private static final int IPV4_MAPPED_PREFIX_LENGTH = 12;

    private final MoldUDP64MessageStore store;
    private final UdpEndpoint endpoint;
    private final MemorySegment answer;
    private final int maxPayload;
    private final long emissionIntervalNs;
    private final long burstToleranceNs;
    private final long[] theoreticalArrival = new long[RATE_TABLE_SIZE];
    /** The per-server key of the source hash: drawn once, so no one outside can aim at a bucket. */
    private final long key0;
    private final long key1;
    private final Reactor reactor;
    private final MoldUDP64DeferredRequests deferredRequests;
    /** No deferred request can be answered before this: {@link #doWork} skips its scan until then. */
    private long nextDeferredNs = Long.MAX_VALUE;
    /** The last source's address and bucket: the JDK hands the same object over while the sender stays the same. */
    private InetAddress lastAddress;
    private int lastBucket;
    private long deferred;
    private long merged;
    private long queueFull;
    private long sourceFull;
    private final Counter requests;
    private long answers;
    private final Counter messagesSent;
    private long malformed;
    private long otherSession;
    private long unavailable;
    private final Counter rateLimited;
    private final Runnable releaseOnReactorRelease = this::release;
    private long forgotten;

    /**
     * Binds the server's socket and attaches it to the reactor.
     *
     * @param reactor the reactor; call on its thread
     * @param store where messages come from; its session is the one served
     * @param udp the socket's settings (its local address is where requests are received; unset, an ephemeral port on
     *     every IPv4 address, as no peer is known: a server for IPv6 subscribers binds {@code [::]:port}, which on
     *     Linux hears IPv4 too)
     * @param maxPayload most bytes of message blocks per answer, e.g. {@link MoldUDP64Layout#DEFAULT_MAX_PAYLOAD}
     * @param answersPerSecond most answers per second to one source host (all its ports together), on average
     * @param burst most answers to one source host back to back
     */
    public MoldUDP64RequestServer(final Reactor reactor, final MoldUDP64MessageStore store, final UdpOptions udp,
        final int maxPayload, final int answersPerSecond, final int burst) {
        this(reactor, store, udp, maxPayload, answersPerSecond, burst, DEFAULT_DEFERRED_REQUESTS, DEFAULT_DEFERRED_PER_SOURCE);
    }

    /**
     * Binds the server's socket and attaches it, and its queue of deferred requests, to the reactor.
     *
     * @param reactor the reactor; call on its thread
     * @param store where messages come from; its session is the one served
     * @param udp the socket's settings, as for the constructor without a queue size
     * @param maxPayload most bytes of message blocks per answer, e.g. {@link MoldUDP64Layout#DEFAULT_MAX_PAYLOAD}
     * @param answersPerSecond most answers per second to one source host (all its ports together), on average
     * @param burst most answers to one source host back to back
     * @param deferredRequests most requests waiting for their source's budget, all sources together
     * @param deferredPerSource most requests of one source host waiting
     */
    public MoldUDP64RequestServer(final Reactor reactor, final MoldUDP64MessageStore store, final UdpOptions udp,
        final int maxPayload, final int answersPerSecond, final int burst, final int deferredRequests,
        final int deferredPerSource) {
        if (reactor == null || store == null || udp == null) {
            throw new IllegalArgumentException("reactor=" + reactor + " store=" + store + " udp=" + udp);
        }
        if (maxPayload < MoldUDP64Layout.BLOCK_HEADER_LENGTH || maxPayload > 65_507 - MoldUDP64Layout.HEADER_LENGTH) {
            throw new IllegalArgumentException("maxPayload=" + maxPayload + " must be in [2, 65487]");
        }
        if (answersPerSecond < 1 || burst < 1) {
            throw new IllegalArgumentException("answersPerSecond=" + answersPerSecond + " burst=" + burst);
        }
        this.deferredRequests = new MoldUDP64DeferredRequests(deferredRequests, deferredPerSource, RATE_TABLE_SIZE);
        final SecureRandom random = new SecureRandom();
        this.key0 = random.nextLong();
        this.key1 = random.nextLong();
        this.reactor = reactor;
        this.store = store;
        this.maxPayload = maxPayload;
        this.emissionIntervalNs = 1_000_000_000L / answersPerSecond;
        this.burstToleranceNs = emissionIntervalNs * (burst - 1);
        this.endpoint = UdpEndpoint.open(reactor, udp, new DatagramHandler() {
            @Override
            public void onDatagram(final UdpEndpoint e, final MemorySegment buffer, final long offset, final int length,
                final InetSocketAddress sender, final long nowNs) {
                onRequest(buffer, offset, length, sender, nowNs);
            }

            @Override
            public void onClosed(final UdpEndpoint e, final CloseReason reason, final String detail) {
                if (reason == CloseReason.ERROR) {
                    release(); // the socket failed: a server never closed by its owner still gives its counter slots back
                }
            }
        });
        if (endpoint.maxDatagramLength() < MoldUDP64Layout.HEADER_LENGTH + maxPayload) {
            endpoint.close();
            throw new IllegalArgumentException("maxPayload=" + maxPayload + " exceeds datagramBuffer=" + endpoint.maxDatagramLength());
        }
        this.answer = endpoint.sendBuffer();
        final String label = "mold-server=" + endpoint.localAddress();
        this.requests = reactor.counters().allocate(CounterTypes.MOLD_SERVER_REQUESTS, label);
        this.rateLimited = reactor.counters().allocate(CounterTypes.MOLD_SERVER_RATE_LIMITED, label);
        this.messagesSent = reactor.counters().allocate(CounterTypes.MOLD_SERVER_RETRANSMITTED, label);
        Arrays.fill(theoreticalArrival, Long.MIN_VALUE);
        reactor.add(this);
        reactor.addReleaseHook(releaseOnReactorRelease); // a reactor closed first still gets the slots back
    }

    /**
     * Handles one request as if it had just arrived; the endpoint calls this for every datagram.
     *
     * @param buffer memory holding the request
     * @param offset where it starts
     * @param length its length
     * @param sender where the answer goes
     * @param nowNs the clock of this cycle
     * @return the number of messages answered, 0 if none
     */
    public int onRequest(final MemorySegment buffer, final long offset, final int length, final InetSocketAddress sender,
        final long nowNs) {
        requests.increment();
        // nothing can be sent back to port 0 (the JDK refuses it, and each refusal reports an error): a forged or
        // broken source, dropped before it takes a share of the rate limit
        if (length != MoldUDP64Layout.REQUEST_LENGTH || sender.getPort() == 0) {
            malformed++;
            return 0;
        }
        final long sequence = MoldUDP64Layout.sequence(buffer, offset);
        final int count = MoldUDP64Layout.count(buffer, offset);
        if (sequence < 1 || count == 0) {
            malformed++;
            return 0;
        }
        if (!MoldUDP64Layout.sessionEquals(buffer, offset, store.session())) {
            otherSession++;
            return 0;
        }
        final long first = store.firstSequence();
        if (sequence >= store.nextSequence() || sequence < first && sequence + count <= first) {
            unavailable++;
            if (sequence < first) {
                forgotten++;
            }
            return 0;
        }
        final int bucket = rateSlot(sender);
        // a source with requests waiting queues behind them, so that its requests are answered oldest first
        if (deferredRequests.waiting(bucket) || !admit(bucket, nowNs)) {
            defer(bucket, sender, sequence, count);
            return 0;
        }
        return answer(sequence, count, sender);
    }

    private void defer(final int bucket, final InetSocketAddress sender, final long sequence, final int count) {
        final int outcome = deferredRequests.offer(bucket, sender, sequence, count);
        if (outcome == MoldUDP64DeferredRequests.QUEUED) {
            deferred++;
            final long dueNs = dueNs(bucket);
            if (dueNs - nextDeferredNs < 0) {
                nextDeferredNs = dueNs;
            }
        } else if (outcome == MoldUDP64DeferredRequests.MERGED) {
            merged++;
        } else {
            if (outcome == MoldUDP64DeferredRequests.QUEUE_FULL) {
                queueFull++;
            } else {
                sourceFull++;
            }
            rateLimited.increment();
        }
    }

    /** When the bucket's budget takes one more answer. */
    private long dueNs(final int bucket) {
        final long tat = theoreticalArrival[bucket];
        return tat == Long.MIN_VALUE ? Long.MIN_VALUE : tat - burstToleranceNs;
    }

    /**
     * Answers the deferred requests whose source's budget allows now, oldest first; the reactor calls this every
     * cycle, and the scan is skipped until the earliest budget allows one.
     *
     * @param nowNs the clock of this cycle
     * @return the number of deferred requests answered or given up (their messages gone meanwhile)
     */
    @Override
    public int doWork(final long nowNs) {
        if (deferredRequests.size() == 0 || nowNs - nextDeferredNs < 0) {
            return 0;
        }
        int served = 0;
        long earliest = Long.MAX_VALUE;
        final long end = deferredRequests.end();
        for (long p = deferredRequests.start(); p < end; p++) {
            final int bucket = deferredRequests.bucketAt(p);
            if (bucket < 0) {
                continue;
            }
            if (admit(bucket, nowNs)) {
                final InetSocketAddress sender = deferredRequests.senderAt(p);
                final long sequence = deferredRequests.sequenceAt(p);
                final int count = deferredRequests.countAt(p);
                deferredRequests.take(p);
                answer(sequence, count, sender);
                served++;
            } else {
                final long dueNs = dueNs(bucket);
                if (earliest == Long.MAX_VALUE || dueNs - earliest < 0) {
                    earliest = dueNs;
                }
            }
        }
        nextDeferredNs = earliest;
        return served;
    }

    /** Sends one answer to an admitted request; the store may have moved past its start while it waited. */
    private int answer(final long sequence, final int count, final InetSocketAddress sender) {
        final long first = store.firstSequence();
        long from = sequence;
        int wanted = Math.min(count, MoldUDP64Layout.MAX_MESSAGE_COUNT);
        if (sequence < first) { // the store moved past the start: answer with what it has, which tells the listener so
            forgotten++;
            if (sequence + count <= first) {
                unavailable++; // gone while the request waited for its budget
                return 0;
            }
            wanted = (int)Math.min(wanted, sequence + count - first);
            from = first;
        }
        final int messages = store.copyBlocks(from, wanted, answer, MoldUDP64Layout.HEADER_LENGTH, maxPayload);
        if (messages == 0) {
            unavailable++; // the first wanted message alone is longer than an answer may be
            return 0;
        }
        MoldUDP64Layout.putHeader(answer, 0, store.session(), from, messages);
        if (endpoint.sendPrepared(MoldUDP64Layout.HEADER_LENGTH + store.copiedBytes(), sender) >= 0) {
            answers++;
            messagesSent.add(messages);
        }
        return messages;
    }

    private boolean admit(final int bucket, final long nowNs) {
        final long tat = Math.max(theoreticalArrival[bucket], nowNs);
        if (tat - nowNs > burstToleranceNs) {
            return false;
        }
        theoreticalArrival[bucket] = tat + emissionIntervalNs;
        return true;
    }

    /**
     * The rate bucket of a request's source: its IPv4 address, or its IPv6 address's /64 (an IPv4-mapped one as the
     * IPv4 address), whatever the port, through the server's keyed hash. The last source's bucket is kept: an
     * {@link Inet4Address}'s hash is its address as an int, but an IPv6 address's bytes are read by a copy, which is
     * made only when the sender changes.
     */
    int rateSlot(final InetSocketAddress sender) {
        final InetAddress address = sender.getAddress();
        if (address != lastAddress) {
            lastBucket = keyedBucket(sourceKey(address));
            lastAddress = address;
        }
        return lastBucket;
    }

    /** An IPv4 source as its 32 bits with bit 32 set; an IPv6 one as its /64 prefix. */
    private static long sourceKey(final InetAddress address) {
        if (address instanceof Inet4Address) {
            return 1L << 32 | address.hashCode() & 0xFFFF_FFFFL;
        }
        final byte[] bytes = address.getAddress();
        if (ipv4Mapped(bytes)) {
            return 1L << 32 | (bytes[12] & 0xFFL) << 24 | (bytes[13] & 0xFFL) << 16 | (bytes[14] & 0xFFL) << 8
                | bytes[15] & 0xFFL;
        }
        long prefix = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            prefix = prefix << 8 | bytes[i] & 0xFFL;
        }
        return prefix;
    }

    /** {@code ::ffff:a.b.c.d}: ten zero bytes, two 0xff bytes, the IPv4 address. */
    private static boolean ipv4Mapped(final byte[] bytes) {
        for (int i = 0; i < IPV4_MAPPED_PREFIX_LENGTH - 2; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return bytes[IPV4_MAPPED_PREFIX_LENGTH - 2] == (byte)0xFF && bytes[IPV4_MAPPED_PREFIX_LENGTH - 1] == (byte)0xFF;
    }

    /**
     * A multiply-xorshift hash keyed by the server's two random words: every bit of the source moves every bit of the
     * bucket, and without the key no one can tell which sources share one.
     */
    private int keyedBucket(final long source) {
        long h = source ^ key0;
        h *= 0x9E37_79B9_7F4A_7C15L;
        h ^= h >>> 29;
        h ^= key1;
        h *= 0xBF58_476D_1CE4_E5B9L;
        h ^= h >>> 32;
        return (int)h & (RATE_TABLE_SIZE - 1);
    }

    /**
     * The server's socket: a publisher thread with long stretches of work between two duty cycles may call its
     * {@link UdpEndpoint#receive(long)} in between, so that requests are answered without waiting for the cycle.
     *
     * @return the endpoint
     */
    public UdpEndpoint endpoint() {
        return endpoint;
    }

    /**
     * Where requests are received.
     *
     * @return the bound address
     */
    public InetSocketAddress localAddress() {
        return endpoint.localAddress();
    }

    /**
     * Datagrams received.
     *
     * @return the count
     */
    public long requests() {
        return requests.get();
    }

    /**
     * Answers sent.
     *
     * @return the count
     */
    public long answers() {
        return answers;
    }

    /**
     * Messages sent in answers.
     *
     * @return the count
     */
    public long messagesSent() {
        return messagesSent.get();
    }

    /**
     * Requests of the wrong length, for sequence 0, for no message, or from source port 0 (no answer can go back).
     *
     * @return the count
     */
    public long malformed() {
        return malformed;
    }

    /**
     * Requests for another session.
     *
     * @return the count
     */
    public long otherSession() {
        return otherSession;
    }

    /**
     * Requests for messages not (or no longer) in the store.
     *
     * @return the count
     */
    public long unavailable() {
        return unavailable;
    }

    /**
     * Requests that asked for messages older than the store keeps: answered with the requested messages it
     * still has (from its oldest one on), or not at all when it has none of them (also counted in
     * {@link #unavailable()}).
     *
     * @return the count
     */
    public long forgotten() {
        return forgotten;
    }

    /**
     * Requests over their source's budget that were dropped: the deferred queue, or the source's share of it, was full
     * ({@link #queueFull()}, {@link #sourceFull()}). A request over budget with room to wait is {@link #deferred()}.
     *
     * @return the count
     */
    public long rateLimited() {
        return rateLimited.get();
    }

    /**
     * Requests over their source's budget that were queued, to be answered when it allows.
     *
     * @return the count
     */
    public long deferred() {
        return deferred;
    }

    /**
     * Requests merged into a waiting one of the same source and first sequence number (not queued twice).
     *
     * @return the count
     */
    public long merged() {
        return merged;
    }

    /**
     * Requests dropped because the deferred queue was full (counted in {@link #rateLimited()}).
     *
     * @return the count
     */
    public long queueFull() {
        return queueFull;
    }

    /**
     * Requests dropped because their source had its share of the deferred queue waiting (counted in
     * {@link #rateLimited()}).
     *
     * @return the count
     */
    public long sourceFull() {
        return sourceFull;
    }

    /**
     * Requests waiting for their source's budget now.
     *
     * @return the count
     */
    public int waiting() {
        return deferredRequests.size();
    }

    /** Closes the socket, leaves the reactor and frees the counter slots; reactor thread only. Idempotent. */
    @Override
    public void close() {
        endpoint.close();
        release();
    }

    private void release() {
        reactor.remove(this);
        reactor.removeReleaseHook(releaseOnReactorRelease);
        requests.close();
        rateLimited.close();
        messagesSent.close();
    }
}
