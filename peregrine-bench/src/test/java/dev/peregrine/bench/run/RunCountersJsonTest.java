package dev.peregrine.bench.run;

import dev.peregrine.bench.report.JsonResults;
import dev.peregrine.bench.testing.InMemoryBenchTransport;
import dev.peregrine.bench.transports.Transports;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** A Peregrine run's JSON carries the responder's transport counters at the end of the run; another's does not. */
@Timeout(120)
class RunCountersJsonTest {
    private static final Pattern MESSAGES_IN = Pattern.compile(
        "\\{\"type\":\"peregrine_tcp_messages_in_total\",\"label\":\"transport=tcp-\\d+\",\"value\":(\\d+)}");

    private final Progress progress = new Progress(System.err, true);

    private static RunSpec spec(final String transport) {
        return new RunSpec("pingpong", Transports.byName(transport), 64, 2_000, 500, 0, 1, true, -1, -1, false, "127.0.0.1");
    }

    @Test
    void shouldCarryThePeregrineTransportsCountersAtTheEndOfTheRun() {
        final RunResult result = new BenchRunner(progress).pingpong(spec("peregrine-tcp"));
        assertThat(result.status()).as(result.note()).isEqualTo(RunResult.Status.OK);
        final String json = JsonResults.object(result);
        assertThat(json).contains(",\"peregrine_counters\":[");
        final Matcher messagesIn = MESSAGES_IN.matcher(json);
        long largest = 0;
        while (messagesIn.find()) {
            largest = Math.max(largest, Long.parseLong(messagesIn.group(1)));
        }
        // the responder's transport received the warm-up and the measured messages, then the counters were read
        assertThat(largest).as(json).isGreaterThanOrEqualTo(result.messages() + 500);
    }

    @Test
    void shouldCarryNoCountersForAnotherTransport() {
        final RunResult result = new BenchRunner(progress).pingpong(spec(InMemoryBenchTransport.NAME));
        assertThat(result.peregrineCounters()).isNull();
        assertThat(JsonResults.object(result)).doesNotContain("peregrine_counters");
    }
}
