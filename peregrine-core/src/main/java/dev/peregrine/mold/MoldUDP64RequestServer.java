package dev.peregrine.mold;

import dev.peregrine.counters.Counter;
import dev.peregrine.counters.CounterTypes;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.udp.UdpEndpoint;
import dev.peregrine.udp.UdpOptions;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
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
 * bursts of {@code burst}. It is keyed on the request's source IP address alone, as what it caps is the answers
 * sent towards one host: keyed on address and port, one host could spread its requests over many source ports
 * and take a budget for each. The listeners of one host (each with its own request socket) therefore share one
 * budget. The address is hashed (for IPv4 its 32 bits, for IPv6 the JDK's hash of its 128) with a full-avalanche
 * mix into a fixed table, so that nothing allocates and hosts that collide share one budget; neighbouring
 * addresses are not more likely to collide than any two.
 *
 * <p>Not thread-safe: one reactor thread, the same one that appends to the store.
 */
public final class MoldUDP64RequestServer implements AutoCloseable {
    private static final int RATE_TABLE_SIZE = 1024;

    private final MoldUDP64MessageStore store;
    private final UdpEndpoint endpoint;
    private final MemorySegment answer;
    private final int maxPayload;
    private final long emissionIntervalNs;
    private final long burstToleranceNs;
    private final long[] theoreticalArrival = new long[RATE_TABLE_SIZE];
    private final Counter requests;
    private long answers;
    private final Counter messagesSent;
    private long malformed;
    private long otherSession;
    private long unavailable;
    private final Counter rateLimited;
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
        if (reactor == null || store == null || udp == null) {
            throw new IllegalArgumentException("reactor=" + reactor + " store=" + store + " udp=" + udp);
        }
        if (maxPayload < MoldUDP64Layout.BLOCK_HEADER_LENGTH || maxPayload > 65_507 - MoldUDP64Layout.HEADER_LENGTH) {
            throw new IllegalArgumentException("maxPayload=" + maxPayload + " must be in [2, 65487]");
        }
        if (answersPerSecond < 1 || burst < 1) {
            throw new IllegalArgumentException("answersPerSecond=" + answersPerSecond + " burst=" + burst);
        }
        this.store = store;
        this.maxPayload = maxPayload;
        this.emissionIntervalNs = 1_000_000_000L / answersPerSecond;
        this.burstToleranceNs = emissionIntervalNs * (burst - 1);
        this.endpoint = UdpEndpoint.open(reactor, udp, (e, buffer, offset, length, sender, nowNs) ->
            onRequest(buffer, offset, length, sender, nowNs));
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
        if (!admit(sender, nowNs)) {
            rateLimited.increment();
            return 0;
        }
        long from = sequence;
        int wanted = Math.min(count, MoldUDP64Layout.MAX_MESSAGE_COUNT);
        if (sequence < first) { // the store moved past the start: answer with what it has, which tells the listener so
            forgotten++;
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

    private boolean admit(final InetSocketAddress sender, final long nowNs) {
        final int slot = rateSlot(sender);
        final long tat = Math.max(theoreticalArrival[slot], nowNs);
        if (tat - nowNs > burstToleranceNs) {
            return false;
        }
        theoreticalArrival[slot] = tat + emissionIntervalNs;
        return true;
    }

    /**
     * The rate table's slot of a request's source: its IP address alone, whatever the port. An
     * {@link java.net.Inet4Address}'s hash is its address as an int, an {@link java.net.Inet6Address}'s is computed
     * from its bytes: neither allocates, where {@code getAddress()} would copy them.
     */
    static int rateSlot(final InetSocketAddress sender) {
        return mix(sender.getAddress().hashCode()) & (RATE_TABLE_SIZE - 1);
    }

    /** MurmurHash3's finaliser: every bit of the address moves every bit of the slot. */
    private static int mix(final int hash) {
        int h = hash;
        h ^= h >>> 16;
        h *= 0x85EB_CA6B;
        h ^= h >>> 13;
        h *= 0xC2B2_AE35;
        return h ^ (h >>> 16);
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
     * Requests dropped by the per-source-host rate limit.
     *
     * @return the count
     */
    public long rateLimited() {
        return rateLimited.get();
    }

    /** Closes the socket; reactor thread only. */
    @Override
    public void close() {
        endpoint.close();
        requests.close();
        rateLimited.close();
        messagesSent.close();
    }
}
