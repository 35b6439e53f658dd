package dev.peregrine.reactor;

/**
 * Receives errors that are not the caller's to handle: a failing handler, a bad peer. The reactor goes on.
 */
@FunctionalInterface
public interface ErrorHandler {
    /** Prints the error with its stack trace to standard error. */
    ErrorHandler STANDARD_ERROR = Throwable::printStackTrace;

    /**
     * Reports an error.
     *
     * @param error what went wrong
     */
    void onError(Throwable error);
}
