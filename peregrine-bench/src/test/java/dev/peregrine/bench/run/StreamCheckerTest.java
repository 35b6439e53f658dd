package dev.peregrine.bench.run;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StreamCheckerTest {
    private static StreamChecker counted(final boolean lossy) {
        return new StreamChecker(2, 6, ThroughputRunner.Window.COUNTED, "test", null, lossy);
    }

    @Test
    void shouldFailAGapOnAReliableTransport() {
        final StreamChecker checker = counted(false);
        checker.accept(0);
        checker.accept(1);

        assertThatThrownBy(() -> checker.accept(3)).hasMessageContaining("sequence gap: expected=2 got=3");
    }

    @Test
    void shouldCountAGapAsLossOnALossyTransportAndLeaveItOutOfTheMeasuredMessages() {
        final StreamChecker checker = counted(true);
        for (final long sequence : new long[] {0, 1, 2, 5, 6, 7}) {
            checker.accept(sequence);
        }

        // window: after warm-up message 2 up to message 8 (2 + 6); 3 and 4 were lost inside it
        assertThat(checker.stopSending).isTrue();
        assertThat(checker.lost).isEqualTo(2);
        assertThat(checker.lostInWindow()).isEqualTo(2);
        assertThat(checker.measured()).isEqualTo(4);
    }

    @Test
    void shouldStillFailReorderingAndDuplicatesOnALossyTransport() {
        final StreamChecker checker = counted(true);
        checker.accept(0);
        checker.accept(4);

        assertThatThrownBy(() -> checker.accept(2)).hasMessageContaining("out of order or repeated");
        assertThatThrownBy(() -> checker.accept(4)).hasMessageContaining("out of order or repeated");
    }
}
