package dev.peregrine.peers.handoff;

import java.util.List;

/** One way to hand messages from thread to thread, as {@code bench handoff} measures it. */
public interface HandoffImplementation {
    /**
     * The name on the command line and in the table, e.g. {@code disruptor}.
     *
     * @return the name
     */
    String name();

    /**
     * Whether several producer threads may share the queue (the two-producer run measures only these).
     *
     * @return true for a many-producer queue
     */
    boolean manyProducers();

    /**
     * How the queue is used, for the report: its batching and its wait strategy.
     *
     * @return one line
     */
    String description();

    /**
     * JVM options the queue needs (Agrona's on JDK 25), or none.
     *
     * @return the options
     */
    default List<String> jvmArguments() {
        return List.of();
    }

    /**
     * Opens a queue for a run.
     *
     * @param setup sizes and producers
     * @return the queue
     * @throws IllegalArgumentException for several producers on a one-producer queue
     */
    HandoffQueue open(HandoffSetup setup);

    /**
     * Refuses several producers on a one-producer queue.
     *
     * @param implementation the queue
     * @param setup the setup
     */
    static void checkProducers(final HandoffImplementation implementation, final HandoffSetup setup) {
        if (setup.producers() > 1 && !implementation.manyProducers()) {
            throw new IllegalArgumentException("producers=" + setup.producers() + ": " + implementation.name()
                + " takes one producer");
        }
    }
}
