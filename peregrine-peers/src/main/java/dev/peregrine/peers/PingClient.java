package dev.peregrine.peers;

/**
 * The measuring side of a ping-pong. Used by one thread; allocates nothing per message.
 */
public interface PingClient extends AutoCloseable {
    /**
     * Sends one message of the configured size carrying {@code sequence} in its sequence field (the first
     * {@link BenchConfig#sequenceLength()} bytes, so only its low 32 bits in a message shorter than 8). Returns
     * once the transport has taken it; spins only while the transport is back-pressured.
     *
     * @param sequence the sequence number to carry
     */
    void send(long sequence);

    /**
     * Polls once for an echo, without blocking.
     *
     * @return the sequence number of the echoed message, or -1 if none has arrived; from a 32-bit field, the
     *     sequence nearest the last one sent with the echoed low bits
     *     ({@link dev.peregrine.peers.BenchMessageLayout#widen}), so a wrong echo never equals the one
     *     expected
     * @throws IllegalStateException if the reply is not {@link BenchConfig#replySize()} bytes long
     */
    long poll();

    /**
     * Waits (busy-spinning) for the next echo.
     *
     * @return its sequence number
     */
    default long receive() {
        long sequence;
        while ((sequence = poll()) < 0) {
            Thread.onSpinWait();
        }
        return sequence;
    }

    /**
     * The group this client shares an event loop with, if it can say which of its clients have an echo waiting.
     *
     * @return the group, or null (the default): the client must be polled to know
     */
    default EchoReadiness readiness() {
        return null;
    }

    @Override
    void close();
}
