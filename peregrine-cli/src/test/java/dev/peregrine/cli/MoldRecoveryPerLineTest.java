package dev.peregrine.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MoldRecoveryPerLineTest {
    @Test
    void shouldPrintTheRecoveryPercentilesOfTheGapsSinceTheLastLineAndThenStartAfresh() {
        final MoldCommand.RecoveryPerLine recovery = new MoldCommand.RecoveryPerLine();
        for (int i = 0; i < 99; i++) {
            recovery.record(20_000); // 20 us
        }
        recovery.record(5_000_000); // 5 ms: above the 99th percentile of 100 values, so only the max would show it

        assertThat(recovery.line()).isEqualTo("recovery(1s) gaps=100 p50=20.0us p99=20.0us");
        recovery.record(5_000_000);
        assertThat(recovery.line()).isEqualTo("recovery(1s) gaps=1 p50=5001.2us p99=5001.2us");
        assertThat(recovery.line()).isEqualTo("recovery(1s) gaps=0");
    }
}
