package dev.peregrine.peers;

import java.util.SplittableRandom;

/**
 * Simulated loss on the sending side of a one-way stream with a recovery layer ({@code bench throughput
 * --loss P --seed S}): each live packet is dropped before it reaches the socket with probability
 * {@code fraction}, drawn from a generator seeded with {@code seed}, so a run's losses can be repeated.
 * Re-request answers are never dropped.
 *
 * @param fraction the probability of dropping a packet, in [0, 1)
 * @param seed the generator's seed
 */
public record StreamLoss(double fraction, long seed) {
    /** No simulated loss. */
    public static final StreamLoss NONE = new StreamLoss(0, 0);

    /**
     * Checks the values.
     */
    public StreamLoss {
        if (!(fraction >= 0 && fraction < 1)) {
            throw new IllegalArgumentException("fraction=" + fraction + " must be in [0, 1)");
        }
    }

    /**
     * Whether any packet is dropped.
     *
     * @return true if {@code fraction > 0}
     */
    public boolean drops() {
        return fraction > 0;
    }

    /**
     * A fresh decision sequence, for one sender on one thread; allocates nothing per decision.
     *
     * @return the dropper
     */
    public Dropper dropper() {
        return new Dropper(fraction, seed);
    }

    /** The seeded decisions of one sender: not thread-safe. */
    public static final class Dropper {
        private final double fraction;
        private final SplittableRandom random;
        private long dropped;

        Dropper(final double fraction, final long seed) {
            this.fraction = fraction;
            this.random = new SplittableRandom(seed);
        }

        /**
         * Decides the fate of the next packet.
         *
         * @return true to drop it
         */
        public boolean drop() {
            if (fraction > 0 && random.nextDouble() < fraction) {
                dropped++;
                return true;
            }
            return false;
        }

        /**
         * Packets dropped so far.
         *
         * @return the count
         */
        public long dropped() {
            return dropped;
        }
    }
}
