package dev.peregrine.peers;

import java.util.function.LongConsumer;

/**
 * The receiving side of a stream with a recovery layer: besides the sequence numbers, it reports how long
 * each gap took to recover, from its detection to the arrival of its last message.
 */
public interface RecoveringStreamReceiver extends StreamReceiver {
    /**
     * Sets where recovery latencies go: one call per gap filled, with nanoseconds, on the polling thread
     * during {@link #poll}. Set before the first poll; the consumer must not allocate.
     *
     * @param nanos receives each recovery latency
     */
    void recoveryLatencies(LongConsumer nanos);
}
