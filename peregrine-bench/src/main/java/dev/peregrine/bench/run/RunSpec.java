package dev.peregrine.bench.run;

import dev.peregrine.bench.transports.BlockingClients;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;

/**
 * What one run measures and how.
 *
 * @param scenario {@code pingpong}, {@code load} or {@code throughput}
 * @param transport the transport
 * @param size message size in bytes: at least {@link BenchConfig#MIN_PINGPONG_SIZE} for {@code pingpong}, at least
 *     {@link BenchConfig#MIN_SIZE} for the scenarios with many messages in flight
 * @param messages messages to measure per client
 * @param warmup messages to send first per client, not measured
 * @param rate messages per second per client, 0 for one in flight
 * @param clients concurrent clients
 * @param inProcess whether the responders run on threads of this JVM instead of a second JVM
 * @param clientCpu CPU for the (first) client thread, or -1
 * @param responderCpu CPU for the responders, or -1
 * @param busySpin whether waiting sides spin
 * @param host the address to use
 * @param timeLimitSeconds the longest the measurement may take (warm-up gets half of it again); it then ends
 *     early with what it measured, marked partial; 0 for no limit
 * @param replySize bytes of each responder's answer; {@code size} for an echo
 * @param sharedResponder whether the clients run on one thread against one responder that serves them all
 *     ({@code bench load}'s default topology), rather than each on a thread of its own with its own responder
 * @param respondEvery the responder answers only messages whose number is a multiple of this, and latency is
 *     taken on those ({@code bench load --respond-every}); 1 for every message
 * @param clientBlocks whether the ping-pong client waits for each echo asleep in its selector
 *     ({@link BlockingClients}) instead of polling (spinning or yielding as {@code busySpin} says); the
 *     responder is not affected
 */
public record RunSpec(String scenario, BenchTransport transport, int size, long messages, long warmup, long rate,
                      int clients, boolean inProcess, int clientCpu, int responderCpu, boolean busySpin,
                      String host, double timeLimitSeconds, int replySize, boolean sharedResponder,
                      int respondEvery, boolean clientBlocks) {
    /** The most messages a run measures or warms up with: its histograms and rings are indexed by int. */
    public static final long MAX_MESSAGES = Integer.MAX_VALUE - 8;

    /**
     * A run whose responder answers every message.
     *
     * @param scenario the scenario
     * @param transport the transport
     * @param size the size
     * @param messages messages per client
     * @param warmup warm-up messages per client
     * @param rate rate per client or 0
     * @param clients clients
     * @param inProcess responder in this JVM
     * @param clientCpu client CPU or -1
     * @param responderCpu responder CPU or -1
     * @param busySpin spin while waiting
     * @param host the address
     * @param timeLimitSeconds the time limit, 0 for none
     * @param replySize the reply size
     * @param sharedResponder one client thread and one responder for all clients
     */
    public RunSpec(final String scenario, final BenchTransport transport, final int size, final long messages,
                   final long warmup, final long rate, final int clients, final boolean inProcess, final int clientCpu,
                   final int responderCpu, final boolean busySpin, final String host, final double timeLimitSeconds,
                   final int replySize, final boolean sharedResponder) {
        this(scenario, transport, size, messages, warmup, rate, clients, inProcess, clientCpu, responderCpu, busySpin,
            host, timeLimitSeconds, replySize, sharedResponder, 1, false);
    }

    /**
     * A run with a client thread and a responder per client.
     *
     * @param scenario the scenario
     * @param transport the transport
     * @param size the size
     * @param messages messages per client
     * @param warmup warm-up messages per client
     * @param rate rate per client or 0
     * @param clients clients
     * @param inProcess responder in this JVM
     * @param clientCpu client CPU or -1
     * @param responderCpu responder CPU or -1
     * @param busySpin spin while waiting
     * @param host the address
     * @param timeLimitSeconds the time limit, 0 for none
     * @param replySize the reply size
     */
    public RunSpec(final String scenario, final BenchTransport transport, final int size, final long messages,
                   final long warmup, final long rate, final int clients, final boolean inProcess, final int clientCpu,
                   final int responderCpu, final boolean busySpin, final String host, final double timeLimitSeconds,
                   final int replySize) {
        this(scenario, transport, size, messages, warmup, rate, clients, inProcess, clientCpu, responderCpu, busySpin,
            host, timeLimitSeconds, replySize, false);
    }

    /**
     * A run whose responder echoes each message.
     *
     * @param scenario the scenario
     * @param transport the transport
     * @param size the size
     * @param messages messages per client
     * @param warmup warm-up messages per client
     * @param rate rate per client or 0
     * @param clients clients
     * @param inProcess responder in this JVM
     * @param clientCpu client CPU or -1
     * @param responderCpu responder CPU or -1
     * @param busySpin spin while waiting
     * @param host the address
     * @param timeLimitSeconds the time limit, 0 for none
     */
    public RunSpec(final String scenario, final BenchTransport transport, final int size, final long messages,
                   final long warmup, final long rate, final int clients, final boolean inProcess, final int clientCpu,
                   final int responderCpu, final boolean busySpin, final String host, final double timeLimitSeconds) {
        this(scenario, transport, size, messages, warmup, rate, clients, inProcess, clientCpu, responderCpu, busySpin,
            host, timeLimitSeconds, size);
    }

    /**
     * A run without a time limit.
     *
     * @param scenario the scenario
     * @param transport the transport
     * @param size the size
     * @param messages messages per client
     * @param warmup warm-up messages per client
     * @param rate rate per client or 0
     * @param clients clients
     * @param inProcess responder in this JVM
     * @param clientCpu client CPU or -1
     * @param responderCpu responder CPU or -1
     * @param busySpin spin while waiting
     * @param host the address
     */
    public RunSpec(final String scenario, final BenchTransport transport, final int size, final long messages,
                   final long warmup, final long rate, final int clients, final boolean inProcess, final int clientCpu,
                   final int responderCpu, final boolean busySpin, final String host) {
        this(scenario, transport, size, messages, warmup, rate, clients, inProcess, clientCpu, responderCpu, busySpin,
            host, 0);
    }

    /**
     * The same run with a time limit.
     *
     * @param seconds the limit, 0 for none
     * @return the new spec
     */
    public RunSpec withTimeLimit(final double seconds) {
        return new RunSpec(scenario, transport, size, messages, warmup, rate, clients, inProcess, clientCpu,
            responderCpu, busySpin, host, seconds, replySize, sharedResponder, respondEvery, clientBlocks);
    }

    /**
     * The same run with another reply size.
     *
     * @param bytes the reply size
     * @return the new spec
     */
    public RunSpec withReplySize(final int bytes) {
        return new RunSpec(scenario, transport, size, messages, warmup, rate, clients, inProcess, clientCpu,
            responderCpu, busySpin, host, timeLimitSeconds, bytes, sharedResponder, respondEvery, clientBlocks);
    }

    /**
     * The same run with another topology.
     *
     * @param shared true for one client thread and one responder for all clients, false for a client thread
     *     and a responder per client
     * @return the new spec
     */
    public RunSpec withSharedResponder(final boolean shared) {
        return new RunSpec(scenario, transport, size, messages, warmup, rate, clients, inProcess, clientCpu,
            responderCpu, busySpin, host, timeLimitSeconds, replySize, shared, respondEvery, clientBlocks);
    }

    /**
     * The same run with a responder that answers only every {@code n}th message.
     *
     * @param n the period, 1 for every message
     * @return the new spec
     */
    public RunSpec withRespondEvery(final int n) {
        return new RunSpec(scenario, transport, size, messages, warmup, rate, clients, inProcess, clientCpu,
            responderCpu, busySpin, host, timeLimitSeconds, replySize, sharedResponder, n, clientBlocks);
    }

    /**
     * The same run with the ping-pong client waiting asleep in its selector, or polling.
     *
     * @param blocks true for a client that blocks ({@link BlockingClients}), false for one that polls
     * @return the new spec
     */
    public RunSpec withClientBlocks(final boolean blocks) {
        return new RunSpec(scenario, transport, size, messages, warmup, rate, clients, inProcess, clientCpu,
            responderCpu, busySpin, host, timeLimitSeconds, replySize, sharedResponder, respondEvery, blocks);
    }

    /**
     * The messages whose answers are measured, all clients together: every one, or with {@link #respondEvery}
     * above 1 those numbered {@code warmup .. warmup + messages - 1} that are multiples of it.
     *
     * @return the count
     */
    public long answeredMessages() {
        return clients * (answeredBelow(warmup + messages, respondEvery) - answeredBelow(warmup, respondEvery));
    }

    /**
     * How many of the message numbers {@code 0 .. n - 1} are multiples of {@code every}.
     *
     * @param n the end, exclusive, not negative
     * @param every the period
     * @return {@code ceil(n / every)}
     */
    public static long answeredBelow(final long n, final int every) {
        return (n + every - 1) / every;
    }
    /**
     * Checks the values.
     */
    public RunSpec {
        if (messages < 1 || messages > MAX_MESSAGES) {
            throw new IllegalArgumentException("messages=" + messages + " must be in [1, 2^31 - 9]");
        }
        if (warmup < 0 || warmup > MAX_MESSAGES) {
            throw new IllegalArgumentException("warmup=" + warmup);
        }
        if (rate < 0) {
            throw new IllegalArgumentException("rate=" + rate);
        }
        if (clients < 1) {
            throw new IllegalArgumentException("clients=" + clients);
        }
        if (respondEvery < 1) {
            throw new IllegalArgumentException("respondEvery=" + respondEvery + " must be at least 1");
        }
        if (timeLimitSeconds < 0 || Double.isNaN(timeLimitSeconds)) {
            throw new IllegalArgumentException("timeLimitSeconds=" + timeLimitSeconds);
        }
        if (size < minSize(scenario)) {
            throw new IllegalArgumentException("size=" + size + " must be at least " + minSize(scenario)
                + " for scenario=" + scenario + " (only pingpong carries a 32-bit sequence in a message of "
                + BenchConfig.MIN_PINGPONG_SIZE + " bytes)");
        }
    }

    /**
     * The smallest message a scenario runs with.
     *
     * @param scenario the scenario
     * @return {@link BenchConfig#MIN_PINGPONG_SIZE} for {@code pingpong} (one message in flight, or a schedule
     *     indexed by sequence), else {@link BenchConfig#MIN_SIZE} (a full 64-bit sequence: {@code load} carries a
     *     client's index in its high 32 bits, {@code throughput} checks order over billions of messages)
     */
    public static int minSize(final String scenario) {
        return "pingpong".equals(scenario) ? BenchConfig.MIN_PINGPONG_SIZE : BenchConfig.MIN_SIZE;
    }

    /**
     * The run's label for progress and tables.
     *
     * @return e.g. {@code tcp size=256 rate=10000/s}, with {@code reply=N} when the reply size differs and
     *     {@code respond-every=N} when not every message is answered
     */
    public String label() {
        return transport.name() + " size=" + size + (replySize != size ? " reply=" + replySize : "")
            + (rate > 0 ? " rate=" + rate + "/s" : "") + (respondEvery > 1 ? " respond-every=" + respondEvery : "")
            + (clients > 1 ? " clients=" + clients : "");
    }
}
