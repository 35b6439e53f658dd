package dev.peregrine.reactor;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class IdleStrategyTest {
    @Test
    void shouldBackOffThroughEveryStageAndResetOnWork() {
        final BackoffIdleStrategy backoff = new BackoffIdleStrategy(2, 2, 1_000, 4_000);
        assertThatCode(() -> {
            for (int i = 0; i < 10; i++) {
                backoff.idle(0); // 2 spins, 2 yields, then parks of 1, 2, 4, 4 ... µs
            }
            backoff.idle(1);
            backoff.reset();
            new BusySpinIdleStrategy().idle(0);
            new YieldingIdleStrategy().idle(0);
        }).doesNotThrowAnyException();
    }

    @Test
    void shouldRejectNonsenseSettings() {
        assertThatThrownBy(() -> new BackoffIdleStrategy(1, 1, 10, 5)).hasMessageContaining("maxParkNs=5");
        assertThatThrownBy(() -> new BlockingSelectIdleStrategy(1_000)).hasMessageContaining("maxWaitNs=1000");
        assertThatThrownBy(() -> new ReactorOptions().cpu(-2)).hasMessageContaining("cpu=-2");
        assertThatThrownBy(() -> new ReactorOptions().timerWheel(1000, 8)).hasMessageContaining("tickNs=1000");
    }
}
