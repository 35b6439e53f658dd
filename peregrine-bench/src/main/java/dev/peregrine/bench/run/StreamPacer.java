package dev.peregrine.bench.run;

import dev.peregrine.peers.RecoveringStreamSender;
import dev.peregrine.peers.StreamSender;

import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Holds a throughput run's sender to an offered rate ({@code bench throughput --rate R}): message {@code n}
 * is due {@code n / R} seconds after the first, and a batch is offered once its first message is due. While
 * it waits, a sender with a recovery layer goes on answering re-requests ({@link RecoveringStreamSender#service()}),
 * so that a paced run measures recovery, not the pause between two batches. Without a rate it never waits.
 */
final class StreamPacer {
    private final long rate;
    private final RecoveringStreamSender recovering;
    private final LongSupplier clock;
    private long startNs;
    private boolean started;

    /**
     * Creates a pacer on {@link System#nanoTime()}.
     *
     * @param rate messages per second, or 0 for as fast as the sender takes them
     * @param sender the sender, driven while waiting if it has a recovery layer
     */
    StreamPacer(final long rate, final StreamSender sender) {
        this(rate, sender, System::nanoTime);
    }

    /**
     * Creates a pacer.
     *
     * @param rate messages per second, or 0 for as fast as the sender takes them
     * @param sender the sender, driven while waiting if it has a recovery layer
     * @param clock nanoseconds
     */
    StreamPacer(final long rate, final StreamSender sender, final LongSupplier clock) {
        if (rate < 0) {
            throw new IllegalArgumentException("rate=" + rate + " must be at least 0");
        }
        this.rate = rate;
        this.recovering = sender instanceof final RecoveringStreamSender r ? r : null;
        this.clock = clock;
    }

    /**
     * When message {@code sequence} is due, relative to the first one.
     *
     * @param sequence the message's number from 0
     * @param rate messages per second, at least 1
     * @return nanoseconds after the first message
     */
    static long dueNs(final long sequence, final long rate) {
        return (long)(sequence * 1e9 / rate);
    }

    /**
     * Waits until message {@code sequence} is due (the first call starts the clock).
     *
     * @param sequence the next message's number from 0
     * @param stop whether to give up waiting, looked at now and then
     * @return false if {@code stop} said so
     */
    boolean awaitDue(final long sequence, final BooleanSupplier stop) {
        if (rate == 0) {
            return true;
        }
        if (!started) {
            started = true;
            startNs = clock.getAsLong() - dueNs(sequence, rate);
            return true;
        }
        final long due = startNs + dueNs(sequence, rate);
        int spins = 0;
        while (clock.getAsLong() - due < 0) {
            if (recovering == null || recovering.service() == 0) {
                Thread.onSpinWait();
            }
            if ((++spins & 1023) == 0 && stop.getAsBoolean()) {
                return false;
            }
        }
        return true;
    }
}
