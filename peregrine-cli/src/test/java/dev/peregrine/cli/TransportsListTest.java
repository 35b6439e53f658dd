package dev.peregrine.cli;

import dev.peregrine.cli.testing.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code bench transports}: the NIO peers, the selector-less loop and the single-selector one, each on a line. */
@Timeout(60)
class TransportsListTest {
    @Test
    void shouldListBothNioPeersOnTheTcpPathAndSayWhichHasASelector() {
        final CliRun cli = CliRun.execute("bench", "transports");

        assertThat(cli.code()).as(cli.err()).isZero();
        assertThat(cli.out().lines())
            .anyMatch(line -> line.matches("nio +tcp +peer +hand-written java\\.nio loop: .*no Selector.*"))
            .anyMatch(line -> line.matches("nio-selector +tcp +peer +textbook single-selector java\\.nio loop: .*"
                + "one Selector holding the listening channel \\(OP_ACCEPT\\) and every connection.*"))
            .noneMatch(line -> line.startsWith("nio") && line.contains("[not available"));
    }
}
