package dev.peregrine.bench.report;

import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.stat.RunCounter;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** report.html shows a Peregrine run's explanatory counters, escaped, and nothing for a run without them. */
class RunCountersHtmlTest {
    private static final Pattern BLOCK = Pattern.compile("<table class=\"counters\" data-transport=\"([^\"]*)\">(.*?)</table>",
        Pattern.DOTALL);

    @Test
    void shouldShowTheNonZeroExplanatoryCountersOfEachRunThatHasThemAndNoBlockForTheOthers() {
        final RunResult tcp = Fixtures.result("peregrine-tcp", "tcp", true, 256, 10_000).withPeregrineCounters(List.of(
            new RunCounter("peregrine_tcp_bytes_in_total", "transport=tcp-1", 25_600),
            new RunCounter("peregrine_tcp_back_pressure_events_total", "transport=tcp-1", 7),
            new RunCounter("peregrine_tcp_back_pressure_events_total", "transport=tcp-1 channel=3 remote=/127.0.0.1:5", 7),
            new RunCounter("peregrine_tcp_frames_rejected_total", "transport=tcp-1 reason=<malformed>", 2),
            new RunCounter("peregrine_tcp_frames_rejected_total", "transport=tcp-1 reason=receive-buffer-full", 0)));
        final RunResult mold = Fixtures.result("peregrine-mold", "udp", true, 64, 10_000).withPeregrineCounters(List.of(
            new RunCounter("peregrine_udp_drops_total", "udp=/127.0.0.1:4000", 1),
            new RunCounter("peregrine_mold_gaps_total", "mold=/239.1.1.1:5000", 3),
            new RunCounter("peregrine_mold_requests_total", "mold=/239.1.1.1:5000", 4),
            new RunCounter("peregrine_mold_recovered_total", "mold=/239.1.1.1:5000", 30),
            new RunCounter("peregrine_mold_duplicates_total", "mold=/239.1.1.1:5000", 5)));
        final RunResult quiet = Fixtures.result("peregrine-shm", "shm", true, 256, 1_000).withPeregrineCounters(List.of(
            new RunCounter("peregrine_tcp_messages_in_total", "transport=tcp-2", 1000)));
        final RunResult peer = Fixtures.result("netty", "tcp", false, 256, 20_000);
        final HtmlReport.Data sample = HtmlReportTest.sample();
        final HtmlReport.Data data = new HtmlReport.Data(sample.command(), sample.options(), sample.machine(),
            sample.transports(), List.of(tcp, mold, quiet, peer), sample.tables(), sample.floors(), sample.floorNote(),
            sample.notes());

        final String html = HtmlReport.render(data);

        final Matcher blocks = BLOCK.matcher(html);
        final List<String> transports = new ArrayList<>();
        final List<String> bodies = new ArrayList<>();
        while (blocks.find()) {
            transports.add(blocks.group(1));
            bodies.add(blocks.group(2));
        }
        assertThat(transports).containsExactly("peregrine-tcp", "peregrine-mold");
        assertThat(rows(bodies.get(0))).containsExactly(
            "TCP back-pressure events|transport=tcp-1|7",
            "TCP frames rejected|transport=tcp-1 reason=&lt;malformed&gt;|2");
        assertThat(rows(bodies.get(1))).containsExactly(
            "UDP datagrams dropped (send buffer full)|udp=/127.0.0.1:4000|1",
            "MoldUDP64 gaps|mold=/239.1.1.1:5000|3",
            "MoldUDP64 requests sent|mold=/239.1.1.1:5000|4",
            "MoldUDP64 messages recovered|mold=/239.1.1.1:5000|30",
            "MoldUDP64 duplicates|mold=/239.1.1.1:5000|5");
        assertThat(bodies.get(0)).contains("Counters of the responder at the end of the run: peregrine-tcp pingpong size=256");
        assertThat(html).doesNotContain("<malformed>");
    }

    @Test
    void shouldShowNoCountersBlockInAReportWithoutCounters() {
        assertThat(HtmlReport.render(HtmlReportTest.sample())).doesNotContain("class=\"counters\"", "Counters of");
    }

    private static List<String> rows(final String body) {
        final Matcher row = Pattern.compile("<tr><td>([^<]*)</td><td>([^<]*)</td><td class=\"num\">(\\d+)</td></tr>")
            .matcher(body);
        final List<String> rows = new ArrayList<>();
        while (row.find()) {
            rows.add(row.group(1) + "|" + row.group(2) + "|" + row.group(3));
        }
        return rows;
    }
}
