package dev.peregrine.peers;

/**
 * The echo side of a ping-pong (or the receiving side of a stream), running on threads of its own.
 */
public interface Responder extends AutoCloseable {
    /**
     * Messages echoed so far.
     *
     * @return the count
     */
    long messages();

    @Override
    void close();
}
