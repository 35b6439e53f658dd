package dev.peregrine.bench.fanout;

/**
 * A reader's check of the sequences it receives: each must be the one after the last. A skip is a loss when losses
 * are tolerated (the stopped reader of {@code --stop-reader}), else it fails the reader, as does a repeat or a
 * sequence that goes backwards. Allocates nothing until it fails.
 */
final class FanoutSequences {
    private final boolean tolerateLoss;
    private long expected;
    private long lost;
    private String failure;

    FanoutSequences(final boolean tolerateLoss) {
        this.tolerateLoss = tolerateLoss;
    }

    /**
     * Checks the next sequence.
     *
     * @param sequence the sequence received
     * @return true if it is accepted (the next one, or past a tolerated loss); false once failed
     */
    boolean accept(final long sequence) {
        if (failure != null) {
            return false;
        }
        if (sequence != expected) {
            if (sequence > expected && tolerateLoss) {
                lost += sequence - expected;
            } else {
                failure = (sequence > expected ? "gap" : "repeat") + ": expected sequence " + expected + ", got "
                    + sequence;
                return false;
            }
        }
        expected = sequence + 1;
        return true;
    }

    /** The sequence expected next. */
    long expected() {
        return expected;
    }

    /** Sequences skipped (tolerated losses). */
    long lost() {
        return lost;
    }

    /** Why the check failed, or null. */
    String failure() {
        return failure;
    }
}
