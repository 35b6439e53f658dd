package dev.peregrine.bench.reconnect;

import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a {@code bench reconnect} run saw.
 *
 * @param count messages in the stream
 * @param delivered messages the client delivered
 * @param lost numbers never delivered, or skipped over
 * @param repeated messages delivered more than once or out of order
 * @param foreign messages that are not the feed's
 * @param cuts connections cut (aborts, or kills of the server process)
 * @param reconnects connection attempts the client made after its first (a refused one included)
 * @param skippedRepeats messages the client received again after a re-login and skipped (its own dedup, not a fault)
 * @param resume time from each cut to the first message delivered on the next connection, in nanoseconds
 * @param restart time from each kill to the restarted server listening, in nanoseconds, or null in process
 * @param failure why the run did not finish, or null
 * @param breakdown the resume's stages by who cut, a line each (see {@code ReconnectClient#breakdown}); empty for none
 */
public record ReconnectResult(long count, long delivered, long lost, long repeated, long foreign, long cuts,
                              long reconnects, long skippedRepeats, Histogram resume, Histogram restart,
                              String failure, List<String> breakdown) {
    /**
     * Whether the run passed: every message exactly once, in order, and the run finished.
     *
     * @return true if so
     */
    public boolean ok() {
        return failure == null && lost == 0 && repeated == 0 && foreign == 0 && delivered == count;
    }

    /**
     * The report, a line each.
     *
     * @return the lines
     */
    public List<String> lines() {
        final List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "delivered=%d of %d lost=%d repeated=%d%s cuts=%d connection attempts after the first=%d"
            + " (re-sent after a re-login and skipped by the client: %d)", delivered, count, lost, repeated,
            foreign == 0 ? "" : " foreign=" + foreign, cuts, reconnects, skippedRepeats));
        lines.add(percentiles(restart == null ? "cut to first message after it" : "kill to first message after it",
            resume));
        lines.addAll(breakdown);
        if (restart != null) {
            lines.add(percentiles("kill to restarted server listening", restart));
        }
        if (failure != null) {
            lines.add("FAILED: " + failure);
        } else if (!ok()) {
            lines.add("FAILED: " + (lost + repeated + foreign) + " messages not delivered exactly once, in order");
        }
        return lines;
    }

    private static String percentiles(final String what, final Histogram histogram) {
        if (histogram.getTotalCount() == 0) {
            return what + ": no samples";
        }
        return String.format(Locale.ROOT, "%s (n=%d): p50 %.1f us  p90 %.1f us  p99 %.1f us  max %.1f us", what,
            histogram.getTotalCount(), histogram.getValueAtPercentile(50) / 1e3, histogram.getValueAtPercentile(90) / 1e3,
            histogram.getValueAtPercentile(99) / 1e3, histogram.getMaxValue() / 1e3);
    }
}
