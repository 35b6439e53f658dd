package dev.peregrine.bench.report;

import dev.peregrine.bench.run.RunResult;
import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.Locale;

/**
 * Text tables in the style of AsyncTCP's trcheck and CoralReactor: for one run, rows mean, p50 ... p99.999
 * and max with columns "~ one way" (half the round trip) and "round trip" in microseconds; then the
 * measurement count, allocation per message, JIT and GC. Numbers that were not measured print as n/a.
 */
public final class LatencyTable {
    /** The percentiles of every table and of the JSON, with their labels. */
    public static final List<Percentile> PERCENTILES = List.of(
        new Percentile("p50", "p50", 50.0),
        new Percentile("p90", "p90", 90.0),
        new Percentile("p99", "p99", 99.0),
        new Percentile("p99.9", "p99_9", 99.9),
        new Percentile("p99.99", "p99_99", 99.99),
        new Percentile("p99.999", "p99_999", 99.999));

    private LatencyTable() {
    }

    /**
     * A percentile as shown in tables and named in JSON.
     *
     * @param label the table label, e.g. {@code p99.9}
     * @param jsonKey the JSON key, e.g. {@code p99_9}
     * @param percentile the percentile, e.g. 99.9
     */
    public record Percentile(String label, String jsonKey, double percentile) {
    }

    /**
     * The full table of one run.
     *
     * @param result the run
     * @return the text, lines ending in a newline
     */
    public static String format(final RunResult result) {
        final StringBuilder out = new StringBuilder();
        out.append(result.scenario()).append(": transport=").append(result.transport())
            .append(" size=").append(result.size())
            .append(result.replySize() != result.size() ? " reply-size=" + result.replySize() : "")
            .append(result.rate() > 0 ? " rate=" + result.rate() + " msg/s per client (latency from intended send time)"
                : " one message in flight")
            .append(result.respondEvery() > 1 ? " respond-every=" + result.respondEvery() + " (latency of the answered"
                + " messages)" : "")
            .append(result.clients() > 1 ? " clients=" + result.clients() : "").append('\n');
        if (result.status() == RunResult.Status.FAILED || result.status() == RunResult.Status.UNAVAILABLE) {
            out.append("  ").append(result.status()).append(": ").append(result.note()).append('\n');
            return out.toString();
        }
        if (result.note() != null) {
            out.append("  ").append(result.status()).append(": ").append(result.note()).append('\n');
        }
        if (result.hasLatency()) {
            final Histogram rtt = result.rtt();
            out.append(String.format(Locale.ROOT, "  %-9s %14s %14s%n", "", "~ one way", "round trip"));
            row(out, "mean", rtt.getMean());
            for (final Percentile p : PERCENTILES) {
                row(out, p.label(), rtt.getValueAtPercentile(p.percentile()));
            }
            row(out, "max", rtt.getMaxValue());
            out.append("  measurements: ").append(rtt.getTotalCount());
            if (!Double.isNaN(result.throughputMsgsPerSecond())) {
                out.append(String.format(Locale.ROOT, "   (%.0f msg/s)", result.throughputMsgsPerSecond()));
            }
            out.append('\n');
            if (!Double.isNaN(result.sentRate())) {
                out.append(String.format(Locale.ROOT, "  sustained: %.0f msg/s per client of %d offered (%.1f%%)%n",
                    result.sentRate(), result.rate(), 100.0 * result.sentRate() / result.rate()));
            }
        } else {
            out.append(String.format(Locale.ROOT, "  throughput: %s msg/s, %s MB/s over %d messages%n",
                number(result.throughputMsgsPerSecond(), 0),
                number(result.throughputMsgsPerSecond() * result.size() / 1e6, 1), result.messages()));
        }
        out.append("  allocated per message: client ").append(bytes(result.clientAllocatedPerMessage()))
            .append(", responder ").append(bytes(result.responderAllocatedPerMessage())).append('\n');
        out.append("  during measurement: client JVM ").append(result.clientRuntime().describe())
            .append("; responder JVM ").append(result.responderRuntime().known()
                ? result.responderRuntime().describe() : "n/a (in-process or not reported)").append('\n');
        return out.toString();
    }

    private static void row(final StringBuilder out, final String label, final double nanos) {
        out.append(String.format(Locale.ROOT, "  %-9s %11.3f us %11.3f us%n", label, nanos / 2000.0, nanos / 1000.0));
    }

    /**
     * Microseconds with 3 decimals, or n/a.
     *
     * @param nanos nanoseconds, NaN or negative for unknown
     * @return the text
     */
    public static String micros(final double nanos) {
        return Double.isNaN(nanos) || nanos < 0 ? "n/a" : String.format(Locale.ROOT, "%.3f", nanos / 1000.0);
    }

    /**
     * Bytes per message with 2 decimals and a unit, or n/a.
     *
     * @param perMessage the value, NaN if unknown
     * @return the text
     */
    public static String bytes(final double perMessage) {
        return Double.isNaN(perMessage) ? "n/a" : String.format(Locale.ROOT, "%.2f B", perMessage);
    }

    /**
     * A number with the given decimals, or n/a.
     *
     * @param value the value, NaN if unknown
     * @param decimals decimals
     * @return the text
     */
    public static String number(final double value, final int decimals) {
        return Double.isNaN(value) || Double.isInfinite(value) ? "n/a"
            : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }
}
