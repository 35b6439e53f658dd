package dev.peregrine.bench.report;

import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.stat.RunCounter;

import java.util.List;
import java.util.Map;

/**
 * The "Counters" block of a Peregrine run in the report: the responder's counters that explain a result
 * (back-pressure, rejected frames, UDP drops, MoldUDP64 recovery), when any of them is not zero.
 */
final class RunCountersHtml {
    /** The counters shown, by name, with the words the report uses for them. */
    private static final Map<String, String> EXPLANATORY = Map.of(
        "peregrine_tcp_back_pressure_events_total", "TCP back-pressure events",
        "peregrine_tcp_frames_rejected_total", "TCP frames rejected",
        "peregrine_udp_drops_total", "UDP datagrams dropped (send buffer full)",
        "peregrine_udp_truncated_total", "UDP datagrams truncated",
        "peregrine_mold_gaps_total", "MoldUDP64 gaps",
        "peregrine_mold_requests_total", "MoldUDP64 requests sent",
        "peregrine_mold_recovered_total", "MoldUDP64 messages recovered",
        "peregrine_mold_duplicates_total", "MoldUDP64 duplicates",
        "peregrine_mold_server_rate_limited_total", "MoldUDP64 requests rate-limited");

    private RunCountersHtml() {
    }

    /**
     * The block for one run.
     *
     * @param result the run
     * @return the HTML, or the empty string if the run has no explanatory counter above zero
     */
    static String of(final RunResult result) {
        final List<RunCounter> counters = result.peregrineCounters();
        if (counters == null) {
            return "";
        }
        final StringBuilder rows = new StringBuilder();
        for (final RunCounter counter : counters) {
            final String words = EXPLANATORY.get(counter.type());
            // a channel's own counters add up to its transport's, which are shown: one row a transport, not a
            // thousand for a load run
            if (words != null && counter.value() != 0 && !counter.label().contains(" channel=")) {
                rows.append("<tr><td>").append(Html.escape(words)).append("</td><td>").append(Html.escape(counter.label()))
                    .append("</td><td class=\"num\">").append(counter.value()).append("</td></tr>\n");
            }
        }
        if (rows.isEmpty()) {
            return "";
        }
        return "<table class=\"counters\" data-transport=\"" + Html.escape(result.transport()) + "\">\n"
            + "<tr><th colspan=\"3\">Counters of the responder at the end of the run: " + Html.escape(result.transport())
            + " " + Html.escape(result.scenario()) + " size=" + Html.escape(result.sizes()) + "</th></tr>\n" + rows
            + "</table>\n";
    }
}
