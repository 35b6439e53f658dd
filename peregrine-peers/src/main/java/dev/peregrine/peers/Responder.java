package dev.peregrine.peers;

/**
 * The echo side of a ping-pong (or the receiving side of a stream), running on threads of its own.
 */
public interface Responder extends AutoCloseable {
    /**
     * Messages handled so far: each echoed or answered, or, with {@link BenchConfig#respondEvery()} above 1, read
     * and left unanswered by design.
     *
     * @return the count
     */
    long messages();

    @Override
    void close();
}
