package dev.peregrine.bench.run;

import dev.peregrine.bench.stat.RunCounter;
import dev.peregrine.bench.stat.RunCounters;

import org.HdrHistogram.Histogram;

import java.util.List;

/**
 * One measured (or failed, or skipped) run: a scenario, a transport, a message size and, for fixed-rate
 * runs, a rate. Every number here was measured; what was not is {@code NaN}, -1 or {@code null}, and is
 * shown as n/a.
 *
 * @param scenario {@code pingpong}, {@code load} or {@code throughput}
 * @param transport the transport's name
 * @param path {@code tcp}, {@code udp} or {@code shm}
 * @param peregrine whether the transport is Peregrine's own (not a peer)
 * @param size message size in bytes
 * @param messages messages measured (all clients together), not counting warm-up
 * @param rate messages per second per client for fixed-rate runs, 0 for one message in flight
 * @param clients concurrent clients
 * @param rtt round-trip latencies in nanoseconds (corrected for coordinated omission at a fixed rate), or null
 * @param throughputMsgsPerSecond messages per second over the measurement, or NaN
 * @param clientAllocatedPerMessage bytes the client thread(s) allocated per measured message, or NaN
 * @param responderAllocatedPerMessage bytes the responder threads allocated per echoed message, or NaN
 * @param clientRuntime JIT/GC of the client's JVM during the measurement
 * @param responderRuntime JIT/GC of the responder's JVM during the measurement (unknown if in-process)
 * @param status what happened
 * @param note the error or unavailability reason, or null
 * @param replySize bytes of each reply; {@code size} for an echo
 * @param recovery throughput over a stream with a recovery layer: each filled gap's recovery latency in
 *     nanoseconds, in the measured window; null for other runs
 * @param peregrineCounters the Peregrine counters of the responder's process at the end of the run
 *     ({@link RunCounters#read}), or null
 * @param respondEvery the responder answered only every Nth message, and {@code rtt} holds those; 1 for all
 * @param sentRate messages per second each client sustained at a fixed rate (sent over the time it took), to
 *     read beside {@code rate}; NaN when not measured
 */
public record RunResult(String scenario, String transport, String path, boolean peregrine, int size, long messages,
                        long rate, int clients, Histogram rtt, double throughputMsgsPerSecond,
                        double clientAllocatedPerMessage, double responderAllocatedPerMessage,
                        RuntimeCounters clientRuntime, RuntimeCounters responderRuntime, Status status, String note,
                        int replySize, Histogram recovery, List<RunCounter> peregrineCounters, int respondEvery,
                        double sentRate) {
    /**
     * A run whose responder answered every message, without a sustained rate.
     *
     * @param scenario the scenario
     * @param transport the transport
     * @param path its path
     * @param peregrine whether it is Peregrine's own
     * @param size the size
     * @param messages messages measured
     * @param rate the rate or 0
     * @param clients the clients
     * @param rtt round-trip latencies, or null
     * @param throughputMsgsPerSecond messages per second, or NaN
     * @param clientAllocatedPerMessage client bytes per message, or NaN
     * @param responderAllocatedPerMessage responder bytes per message, or NaN
     * @param clientRuntime the client JVM's JIT/GC
     * @param responderRuntime the responder JVM's JIT/GC
     * @param status what happened
     * @param note the reason, or null
     * @param replySize bytes of each reply
     * @param recovery recovery latencies, or null
     * @param peregrineCounters the responder's counters, or null
     */
    public RunResult(final String scenario, final String transport, final String path, final boolean peregrine,
                     final int size, final long messages, final long rate, final int clients, final Histogram rtt,
                     final double throughputMsgsPerSecond, final double clientAllocatedPerMessage,
                     final double responderAllocatedPerMessage, final RuntimeCounters clientRuntime,
                     final RuntimeCounters responderRuntime, final Status status, final String note, final int replySize,
                     final Histogram recovery, final List<RunCounter> peregrineCounters) {
        this(scenario, transport, path, peregrine, size, messages, rate, clients, rtt, throughputMsgsPerSecond,
            clientAllocatedPerMessage, responderAllocatedPerMessage, clientRuntime, responderRuntime, status, note,
            replySize, recovery, peregrineCounters, 1, Double.NaN);
    }

    /**
     * A run without recovery latencies.
     *
     * @param scenario the scenario
     * @param transport the transport
     * @param path its path
     * @param peregrine whether it is Peregrine's own
     * @param size the size
     * @param messages messages measured
     * @param rate the rate or 0
     * @param clients the clients
     * @param rtt round-trip latencies, or null
     * @param throughputMsgsPerSecond messages per second, or NaN
     * @param clientAllocatedPerMessage client bytes per message, or NaN
     * @param responderAllocatedPerMessage responder bytes per message, or NaN
     * @param clientRuntime the client JVM's JIT/GC
     * @param responderRuntime the responder JVM's JIT/GC
     * @param status what happened
     * @param note the reason, or null
     * @param replySize bytes of each reply
     */
    public RunResult(final String scenario, final String transport, final String path, final boolean peregrine,
                     final int size, final long messages, final long rate, final int clients, final Histogram rtt,
                     final double throughputMsgsPerSecond, final double clientAllocatedPerMessage,
                     final double responderAllocatedPerMessage, final RuntimeCounters clientRuntime,
                     final RuntimeCounters responderRuntime, final Status status, final String note, final int replySize) {
        this(scenario, transport, path, peregrine, size, messages, rate, clients, rtt, throughputMsgsPerSecond,
            clientAllocatedPerMessage, responderAllocatedPerMessage, clientRuntime, responderRuntime, status, note,
            replySize, null, null);
    }

    /**
     * A run whose replies were echoes of the messages.
     *
     * @param scenario the scenario
     * @param transport the transport
     * @param path its path
     * @param peregrine whether it is Peregrine's own
     * @param size the size
     * @param messages messages measured
     * @param rate the rate or 0
     * @param clients the clients
     * @param rtt round-trip latencies, or null
     * @param throughputMsgsPerSecond messages per second, or NaN
     * @param clientAllocatedPerMessage client bytes per message, or NaN
     * @param responderAllocatedPerMessage responder bytes per message, or NaN
     * @param clientRuntime the client JVM's JIT/GC
     * @param responderRuntime the responder JVM's JIT/GC
     * @param status what happened
     * @param note the reason, or null
     */
    public RunResult(final String scenario, final String transport, final String path, final boolean peregrine,
                     final int size, final long messages, final long rate, final int clients, final Histogram rtt,
                     final double throughputMsgsPerSecond, final double clientAllocatedPerMessage,
                     final double responderAllocatedPerMessage, final RuntimeCounters clientRuntime,
                     final RuntimeCounters responderRuntime, final Status status, final String note) {
        this(scenario, transport, path, peregrine, size, messages, rate, clients, rtt, throughputMsgsPerSecond,
            clientAllocatedPerMessage, responderAllocatedPerMessage, clientRuntime, responderRuntime, status, note, size);
    }

    /**
     * The same result with another reply size.
     *
     * @param bytes the reply size
     * @return the new result
     */
    public RunResult withReplySize(final int bytes) {
        return new RunResult(scenario, transport, path, peregrine, size, messages, rate, clients, rtt,
            throughputMsgsPerSecond, clientAllocatedPerMessage, responderAllocatedPerMessage, clientRuntime,
            responderRuntime, status, note, bytes, recovery, peregrineCounters, respondEvery, sentRate);
    }

    /**
     * Two parts of a note as one: either alone when the other is null, else both with "; " between.
     *
     * @param first the first part, or null
     * @param second the second part, or null
     * @return the note, or null if both are null
     */
    static String joinedNote(final String first, final String second) {
        return first == null ? second : second == null ? first : first + "; " + second;
    }

    /**
     * The same result with recovery latencies.
     *
     * @param latencies each filled gap's recovery latency in nanoseconds, or null
     * @return the new result
     */
    public RunResult withRecovery(final Histogram latencies) {
        return new RunResult(scenario, transport, path, peregrine, size, messages, rate, clients, rtt,
            throughputMsgsPerSecond, clientAllocatedPerMessage, responderAllocatedPerMessage, clientRuntime,
            responderRuntime, status, note, replySize, latencies, peregrineCounters, respondEvery, sentRate);
    }

    /**
     * The same result with the Peregrine counters at the end of the run.
     *
     * @param counters the counters, or null
     * @return the new result
     */
    public RunResult withPeregrineCounters(final List<RunCounter> counters) {
        return new RunResult(scenario, transport, path, peregrine, size, messages, rate, clients, rtt,
            throughputMsgsPerSecond, clientAllocatedPerMessage, responderAllocatedPerMessage, clientRuntime,
            responderRuntime, status, note, replySize, recovery, counters, respondEvery, sentRate);
    }

    /**
     * The same result with how the client sent: the responder's period and the rate the clients sustained.
     *
     * @param every the responder answered every {@code every}th message; 1 for all
     * @param sustained messages per second per client, or NaN
     * @return the new result
     */
    public RunResult withSending(final int every, final double sustained) {
        return new RunResult(scenario, transport, path, peregrine, size, messages, rate, clients, rtt,
            throughputMsgsPerSecond, clientAllocatedPerMessage, responderAllocatedPerMessage, clientRuntime,
            responderRuntime, status, note, replySize, recovery, peregrineCounters, every, sustained);
    }

    /**
     * The size as tables show it: {@code 16} for an echo, {@code 16/1024} when the reply size differs.
     *
     * @return the text
     */
    public String sizes() {
        return replySize == size ? Integer.toString(size) : size + "/" + replySize;
    }

    /** How a run ended. */
    public enum Status {
        /** Measured to the end. */
        OK,
        /**
         * Interrupted (Ctrl-C), stopped by an error or the time limit after measuring part of it, or unable to keep
         * up with its rate: numbers cover what was measured.
         */
        PARTIAL,
        /** Failed before measuring anything useful. */
        FAILED,
        /** Not run: the transport says it cannot run here. */
        UNAVAILABLE
    }

    /**
     * A run that produced no numbers.
     *
     * @param scenario the scenario
     * @param transport the transport
     * @param path its path
     * @param peregrine whether it is Peregrine's own
     * @param size the size
     * @param rate the rate or 0
     * @param clients the clients
     * @param status {@link Status#FAILED} or {@link Status#UNAVAILABLE}
     * @param note why
     * @return the result
     */
    public static RunResult withoutNumbers(final String scenario, final String transport, final String path,
                                           final boolean peregrine, final int size, final long rate, final int clients,
                                           final Status status, final String note) {
        return new RunResult(scenario, transport, path, peregrine, size, 0, rate, clients, null, Double.NaN,
            Double.NaN, Double.NaN, RuntimeCounters.UNKNOWN, RuntimeCounters.UNKNOWN, status, note);
    }

    /**
     * Whether latency numbers exist.
     *
     * @return true if a histogram with at least one value is present
     */
    public boolean hasLatency() {
        return rtt != null && rtt.getTotalCount() > 0;
    }

    /**
     * A short label for tables and file names: {@code tcp size=256} plus the rate when fixed.
     *
     * @return the label, with {@code reply=N} when the reply size differs and {@code respond-every=N} when not
     *     every message was answered
     */
    public String label() {
        return transport + " size=" + size + (replySize != size ? " reply=" + replySize : "") + (rate > 0 ? " rate=" + rate + "/s" : "")
            + (respondEvery > 1 ? " respond-every=" + respondEvery : "") + (clients > 1 ? " clients=" + clients : "");
    }
}
