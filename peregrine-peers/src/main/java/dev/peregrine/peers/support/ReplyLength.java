package dev.peregrine.peers.support;

/**
 * The check every ping client makes on every reply: its length is the configured
 * {@link dev.peregrine.peers.BenchConfig#replySize()}.
 */
public final class ReplyLength {
    private ReplyLength() {
    }

    /**
     * Checks a reply's length.
     *
     * @param length the reply's length as received
     * @param replySize the configured reply size
     * @param sequence the sequence number the reply carries
     * @return the sequence number
     * @throws IllegalStateException naming the lengths and the sequence if they differ
     */
    public static long check(final int length, final int replySize, final long sequence) {
        if (length != replySize) {
            throw new IllegalStateException("reply of length=" + length + " to sequence=" + sequence
                + ", expected replySize=" + replySize);
        }
        return sequence;
    }
}
