package dev.peregrine.bench.run;

import dev.peregrine.bench.transports.Transports;
import dev.peregrine.peers.RecoveringStreamSender;
import dev.peregrine.peers.StreamLoss;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code bench throughput --rate}: a batch is offered once its first message is due, on a scripted clock. */
@Timeout(60)
class StreamPacerTest {
    /** A recovering sender whose every service() call moves the clock on by 1 µs. */
    private static final class ScriptedSender implements RecoveringStreamSender {
        long nowNs = 5_000_000L;
        long services;

        @Override
        public boolean offer(final long sequence) {
            return true;
        }

        @Override
        public int service() {
            services++;
            nowNs += 1_000L;
            return 0;
        }

        @Override
        public long packetsDropped() {
            return 0;
        }

        @Override
        public void close() {
        }
    }

    @Test
    void shouldServeARecoveringSenderUntilTheBatchIsDue() {
        final ScriptedSender sender = new ScriptedSender();
        final StreamPacer pacer = new StreamPacer(1_000_000, sender, () -> sender.nowNs);

        assertThat(pacer.awaitDue(0, () -> false)).as("the first batch starts the clock").isTrue();
        assertThat(sender.services).isZero();
        assertThat(pacer.awaitDue(256, () -> false)).isTrue();
        assertThat(sender.services).as("256 messages at 1 M/s: 256 us of serving").isEqualTo(256);
        sender.nowNs += 1_000_000L; // the sender fell behind its schedule: no wait
        assertThat(pacer.awaitDue(512, () -> false)).isTrue();
        assertThat(sender.services).isEqualTo(256);
    }

    @Test
    void shouldNeverWaitWithoutARateAndStopWaitingWhenTold() {
        final ScriptedSender sender = new ScriptedSender();
        final StreamPacer unpaced = new StreamPacer(0, sender, () -> sender.nowNs);
        assertThat(unpaced.awaitDue(0, () -> false)).isTrue();
        assertThat(unpaced.awaitDue(1_000_000, () -> false)).isTrue();
        assertThat(sender.services).isZero();

        final StreamPacer slow = new StreamPacer(1, sender, () -> sender.nowNs);
        slow.awaitDue(0, () -> false);
        assertThat(slow.awaitDue(1_000, () -> true)).as("a stopped run does not wait 1000 s").isFalse();
    }

    @Test
    void shouldOfferAtTheGivenRateAndSayItInTheResult() {
        final RunResult result = new ThroughputRunner(new Progress(System.err, true)).run(new RunSpec("throughput",
            Transports.byName("peregrine-mold"), 32, 20_000, 0, 100_000, 1, true, -1, -1, false, "127.0.0.1")
            .withTimeLimit(60), ThroughputRunner.Window.COUNTED, Batch.ofMessages(64), new StreamLoss(0.05, 3));

        assertThat(result.status()).as(result.note()).isEqualTo(RunResult.Status.OK);
        assertThat(result.messages()).isEqualTo(20_000);
        assertThat(result.rate()).isEqualTo(100_000);
    }
}
