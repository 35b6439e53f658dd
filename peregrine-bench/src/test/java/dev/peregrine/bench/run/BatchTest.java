package dev.peregrine.bench.run;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BatchTest {
    @Test
    void shouldParseACountOrAPayloadSize() {
        assertThat(Batch.parse("2048")).isEqualTo(Batch.ofMessages(2048));
        assertThat(Batch.parse("64KiB")).isEqualTo(Batch.ofBytes(65536));
        assertThat(Batch.parse(" 64k ")).isEqualTo(Batch.ofBytes(65536));
        assertThat(Batch.parse("1MiB")).isEqualTo(Batch.ofBytes(1 << 20));
        assertThat(Batch.parse("9000B")).isEqualTo(Batch.ofBytes(9000));
    }

    @Test
    void shouldRefuseWhatIsNeitherNamingWhatIsAccepted() {
        for (final String bad : List.of("0", "0KiB", "-1", "", "KiB", "64kb", "1.5KiB", "99999999999", "2048MiB")) {
            assertThatThrownBy(() -> Batch.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + bad + "' is not a batch").hasMessageContaining("64KiB");
        }
        assertThatThrownBy(() -> new Batch(1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Batch(0, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldCountTheMessagesThatFillThePayloadSizeAndAtLeastOne() {
        assertThat(Batch.DEFAULT.messagesAt(32)).isEqualTo(2048);
        assertThat(Batch.DEFAULT.messagesAt(256)).isEqualTo(256);
        assertThat(Batch.DEFAULT.messagesAt(100_000)).isEqualTo(1);
        assertThat(Batch.ofMessages(7).messagesAt(32)).isEqualTo(7);
    }

    @Test
    void shouldFlushByBytesUnpacedAndBy256MessagesPaced() {
        assertThat(Batch.defaultFor(0)).isEqualTo(Batch.ofBytes(64 * 1024));
        assertThat(Batch.defaultFor(1_000_000)).isEqualTo(Batch.ofMessages(256));
    }

    @Test
    void shouldDescribeItselfForTheSizesOfTheRuns() {
        assertThat(Batch.DEFAULT.describe(List.of(32, 256))).isEqualTo("64 KiB of payload (2048 messages of 32 B, 256 of 256 B)");
        assertThat(Batch.ofBytes(9000).describe(List.of(32))).isEqualTo("9000 B of payload (281 messages of 32 B)");
        assertThat(Batch.ofBytes(1 << 20).describe(List.of())).isEqualTo("1 MiB of payload");
        assertThat(Batch.ofMessages(64).describe(List.of(32))).isEqualTo("64 messages");
        assertThat(Batch.DEFAULT).hasToString("64 KiB");
    }
}
