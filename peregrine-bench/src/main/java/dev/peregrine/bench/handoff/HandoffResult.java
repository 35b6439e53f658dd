package dev.peregrine.bench.handoff;

import org.HdrHistogram.Histogram;

/**
 * One {@code bench handoff} run.
 *
 * @param implementation the queue's name
 * @param size message bytes
 * @param producers producer threads
 * @param latency one-way latencies in nanoseconds from the intended send time (a paced run), or null (a
 *     throughput run)
 * @param messagesPerSecond messages the consumer took per second in the measured window (a paced run: the rate it
 *     kept up with)
 * @param messages messages measured
 * @param producerBytesPerMessage bytes the producer threads allocated in the window, per message; NaN if the JVM
 *     cannot tell
 * @param consumerBytesPerMessage bytes the consumer thread allocated in the window, per message; NaN likewise
 * @param failure why the run failed (a sequence out of order, a hung run), or null
 */
public record HandoffResult(String implementation, int size, int producers, Histogram latency,
                            double messagesPerSecond, long messages, double producerBytesPerMessage,
                            double consumerBytesPerMessage, String failure) {
    /**
     * Whether this is a paced latency run.
     *
     * @return true if it has latencies
     */
    public boolean isLatency() {
        return latency != null;
    }

    /**
     * Whether the run failed.
     *
     * @return true if {@link #failure()} says why
     */
    public boolean failed() {
        return failure != null;
    }

    /**
     * The run's kind, for grouping rows: {@code latency}, {@code throughput-1p}, {@code throughput-2p}.
     *
     * @return the key
     */
    public String mode() {
        return isLatency() ? "latency" : "throughput-" + producers + "p";
    }
}
