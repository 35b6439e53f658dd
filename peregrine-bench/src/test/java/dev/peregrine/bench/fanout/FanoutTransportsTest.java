package dev.peregrine.bench.fanout;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The broadcast log's default size in {@code bench fanout}: the room Aeron IPC's publication has, 2 MiB (half its 4 MiB
 * term), in the log's slots (16-byte header and payload, rounded up to 64 bytes), to the nearest power of two; and the
 * stop-reader scenario's log, which wraps in half the stop.
 */
class FanoutTransportsTest {
    @Test
    void shouldGiveTheBroadcastLogTheRoomAeronsPublicationHas() {
        assertThat(FanoutTransports.recordsLikeAeron(32)).as("2 MiB / 64 B slots").isEqualTo(32_768);
        assertThat(FanoutTransports.recordsLikeAeron(48)).as("2 MiB / 64 B slots").isEqualTo(32_768);
        assertThat(FanoutTransports.recordsLikeAeron(49)).as("2 MiB / 128 B slots").isEqualTo(16_384);
        assertThat(FanoutTransports.recordsLikeAeron(256)).as("2 MiB / 320 B = 6 553: nearer 8 192 than 4 096")
            .isEqualTo(8_192);
        assertThat(FanoutTransports.recordsLikeAeron(4096)).as("2 MiB / 4 160 B = 504: nearer 512 than 256")
            .isEqualTo(512);
    }

    @Test
    void shouldSizeTheStopReaderLogToWrapInHalfTheStop() {
        assertThat(FanoutTransports.stopReaderRecords(20_000)).as("5 000 records stopped for half: 4 096")
            .isEqualTo(4_096);
        assertThat(FanoutTransports.stopReaderRecords(200_000)).isEqualTo(32_768);
        assertThat(FanoutTransports.stopReaderRecords(10_000_000)).as("at most").isEqualTo(65_536);
        assertThat(FanoutTransports.stopReaderRecords(100)).as("at least").isEqualTo(64);
    }
}
