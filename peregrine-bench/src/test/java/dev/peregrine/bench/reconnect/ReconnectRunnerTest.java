package dev.peregrine.bench.reconnect;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReconnectRunnerTest {
    @Test
    void shouldWarmUpOnMoreThanOneWholeStreamSoThatAStreamsEndAndANewStreamsStartRunBeforeTheMeasuredStream()
        throws Exception {
        // 10 cuts at 5 ms and 200 000 msg/s, and one interval more: 11 000 messages a stream
        final ReconnectRunner.Spec spec = new ReconnectRunner.Spec(100_000, 200_000, 5_000_000, false, 0, 0);

        final List<ReconnectResult> warm = ReconnectRunner.warmUp(spec, 10);

        // a stream's end (End of Session, the reactors closing) and a new stream's start (a new store, new reactors,
        // their first cycles) trap the C2 code compiled while cuts ran; with one warm-up stream that code was
        // recompiled in the measured stream's first second (issue 32, soup14): the warm-up must take both paths
        assertThat(warm).as("warm-up streams").hasSizeGreaterThanOrEqualTo(2);
        for (final ReconnectResult stream : warm) {
            assertThat(stream.ok()).as("%s", stream.lines()).isTrue();
            assertThat(stream.count()).isEqualTo(11_000);
            assertThat(stream.cuts()).as("a cut and its resume").isPositive(); // how many: a cold JVM's pace
        }
    }
}
