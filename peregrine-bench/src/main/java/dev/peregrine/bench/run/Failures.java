package dev.peregrine.bench.run;

/**
 * How a run names the exception that failed it, in a result's reason and on the responder's {@code FAILED} line.
 */
public final class Failures {
    private Failures() {
    }

    /**
     * An exception as one line: its class, message and cause.
     *
     * @param error the exception
     * @return the line
     */
    public static String oneLine(final Throwable error) {
        final StringBuilder text = new StringBuilder(error.getClass().getSimpleName());
        if (error.getMessage() != null) {
            text.append(": ").append(error.getMessage());
        }
        if (error.getCause() != null && error.getCause() != error) {
            text.append(" (caused by ").append(oneLine(error.getCause())).append(')');
        }
        return text.toString().replace('\n', ' ');
    }
}
