package dev.peregrine.peers;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The sizes a benchmark configuration takes: from 4 bytes (bench pingpong: a 32-bit sequence), with the
 * responder answering every Nth message only at bench load's 16.
 */
class BenchConfigTest {
    private static final Path DIR = Path.of("/tmp");

    @Test
    void shouldTakeAFourBytePingAnsweredByAKilobyte() {
        final BenchConfig config = new BenchConfig("127.0.0.1", 40000, 4, DIR, false, 1024);

        assertThat(config.size()).isEqualTo(4);
        assertThat(config.replySize()).isEqualTo(1024);
        assertThat(config.sequenceLength()).isEqualTo(4);
        assertThat(new BenchConfig("127.0.0.1", 40000, 1024, DIR, false, 4).sequenceLength()).isEqualTo(4);
        assertThat(new BenchConfig("127.0.0.1", 40000, 8, DIR, false, 8).sequenceLength()).isEqualTo(8);
        assertThat(new BenchConfig("127.0.0.1", 40000, 16, DIR, false, 1024).sequenceLength()).isEqualTo(8);
    }

    @Test
    void shouldRefuseAMessageOrReplyTooShortForA32BitSequence() {
        assertThatThrownBy(() -> new BenchConfig("127.0.0.1", 40000, 3, DIR, false, 1024))
            .isInstanceOf(IllegalArgumentException.class).hasMessage("size=3 must be in [4, 1048576]");
        assertThatThrownBy(() -> new BenchConfig("127.0.0.1", 40000, 4, DIR, false, 3))
            .isInstanceOf(IllegalArgumentException.class).hasMessage("replySize=3 must be in [4, 1048576]");
    }

    @Test
    void shouldAnswerEveryNthMessageOnlyWithTheFullSequenceOfBenchLoad() {
        assertThat(new BenchConfig("127.0.0.1", 40000, 16, DIR, false).withRespondEvery(10).respondEvery()).isEqualTo(10);
        final BenchConfig small = new BenchConfig("127.0.0.1", 40000, 8, DIR, false);
        assertThatThrownBy(() -> small.withRespondEvery(10))
            .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("respondEvery=10 needs size>=16")
            .hasMessageEndingWith("size=8");
    }
}
