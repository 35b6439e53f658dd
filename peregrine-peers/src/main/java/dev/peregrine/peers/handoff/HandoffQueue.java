package dev.peregrine.peers.handoff;

/** A queue opened for one run: its producers, its consumer, and the memory it frees when closed. */
public interface HandoffQueue extends AutoCloseable {
    /**
     * The producer side for one producer thread.
     *
     * @param index from 0 to the setup's producers - 1; each index once
     * @return the producer
     */
    HandoffProducer producer(int index);

    /**
     * The consumer side.
     *
     * @return the consumer
     */
    HandoffConsumer consumer();

    /** Frees what the queue holds; after its threads have ended. */
    @Override
    void close();
}
