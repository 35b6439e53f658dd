package dev.peregrine.bench.run;

/**
 * The echo side of a run, wherever it runs: in a second JVM ({@link ChildResponderSide}, the default) or on
 * threads of this one ({@link LocalResponderSide}, {@code --in-process}).
 */
public interface ResponderSide extends AutoCloseable {
    /**
     * Asks the responders for their counters.
     *
     * @return messages echoed, bytes allocated by the responder threads, and the JVM's JIT/GC counters
     */
    ResponderStats stats();

    /**
     * Where the responders run, for the report.
     *
     * @return e.g. {@code second JVM (pid 1234)}
     */
    String where();

    /**
     * The process the responders run in, whose counters file {@code ./peregrine stat} reads.
     *
     * @return the pid; this JVM's unless the responders have a JVM of their own
     */
    default long pid() {
        return ProcessHandle.current().pid();
    }

    /** Stops the responders (and their JVM). */
    @Override
    void close();
}
