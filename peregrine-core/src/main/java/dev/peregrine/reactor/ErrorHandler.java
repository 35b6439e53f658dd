package dev.peregrine.reactor;

/**
 * Receives errors that are not the caller's to handle: a failing handler, a bad peer. The reactor goes on.
 */
@FunctionalInterface
public interface ErrorHandler {
    /**
     * Prints errors to standard error, bounded: the first occurrence of each distinct error with its stack trace, and
     * its repeats as at most one line a second each, {@code ... repeated 12345 times in the last 1.0 s: <class>:
     * <message>}, so that an error met every duty cycle neither floods standard error nor slows the reactor. Two
     * errors are the same when they are of the same class thrown at the same place (first stack frame), with root
     * causes alike; messages are not compared. The last 64 distinct errors are remembered. Thread-safe: reactors may
     * share it. The default of {@link ReactorOptions#errorHandler}.
     */
    ErrorHandler STANDARD_ERROR = new StandardErrorHandler();

    /**
     * Reports an error.
     *
     * @param error what went wrong
     */
    void onError(Throwable error);
}
