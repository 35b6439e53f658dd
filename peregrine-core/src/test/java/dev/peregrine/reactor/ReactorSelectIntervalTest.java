package dev.peregrine.reactor;

import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link ReactorOptions#selectInterval(int)}: the selector is consulted on every n-th cycle only, while
 * pollables still run on every cycle.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ReactorSelectIntervalTest {
    @Test
    void shouldSeeReadinessOnlyOnEveryNthCycleButPollEveryCycle() throws Exception {
        final Pipe pipe = Pipe.open();
        final int[] selected = {0};
        final int[] polled = {0};
        try (Reactor reactor = new Reactor(new ReactorOptions().selectInterval(3))) {
            reactor.register(pipe.source(), SelectionKey.OP_READ, (key, nowNs) -> {
                selected[0]++;
                key.interestOps(0); // seen once is enough
            });
            reactor.add(nowNs -> {
                polled[0]++;
                return 0;
            });
            pipe.sink().write(ByteBuffer.wrap(new byte[] {1}));

            assertThat(reactor.doWork()).as("cycle 1 does not select").isZero();
            assertThat(reactor.doWork()).as("cycle 2 does not select").isZero();
            assertThat(selected[0]).isZero();
            assertThat(reactor.doWork()).as("cycle 3 selects").isEqualTo(1);
            assertThat(selected[0]).isEqualTo(1);
            assertThat(polled[0]).isEqualTo(3);
        } finally {
            pipe.sink().close();
        }
    }

    @Test
    void shouldSelectEveryCycleByDefault() throws Exception {
        final Pipe pipe = Pipe.open();
        final int[] selected = {0};
        try (Reactor reactor = new Reactor()) {
            reactor.register(pipe.source(), SelectionKey.OP_READ, (key, nowNs) -> selected[0]++);
            pipe.sink().write(ByteBuffer.wrap(new byte[] {1}));
            assertThat(reactor.doWork()).isEqualTo(1);
            assertThat(selected[0]).isEqualTo(1);
        } finally {
            pipe.sink().close();
        }
    }

    @Test
    void shouldRejectAnIntervalBelowOne() {
        assertThatIllegalArgumentException().isThrownBy(() -> new ReactorOptions().selectInterval(0))
            .withMessageContaining("selectInterval=0");
    }
}
