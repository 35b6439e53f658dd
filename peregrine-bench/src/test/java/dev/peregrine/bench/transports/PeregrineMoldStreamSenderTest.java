package dev.peregrine.bench.transports;

import dev.peregrine.bench.run.RunEnvironment;
import dev.peregrine.mold.MoldUDP64Layout;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.StreamLoss;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The throughput mode's MoldUDP64 sender: batches leave in full packets, and a flush after the last sends the rest. */
@Timeout(60)
class PeregrineMoldStreamSenderTest {
    @Test
    @SuppressWarnings("try") // the feed socket is only there to be bound
    void shouldSendBatchesInFullPacketsAndTheRestWhenFlushedWithNothingNewOffered() throws IOException {
        final BenchConfig config = new BenchConfig("127.0.0.1", RunEnvironment.freePorts("127.0.0.1",
            BenchConfig.PORTS_PER_RESPONDER), 32, Path.of("target"), true);
        final int perPacket = MoldUDP64Layout.DEFAULT_MAX_PAYLOAD / (32 + MoldUDP64Layout.BLOCK_HEADER_LENGTH);
        // a socket on the feed's port, as in a run: the segmenting publisher's socket is connected, and a send to
        // a port nobody listens on fails on the next send (the ICMP error), which would count as not sent
        try (DatagramChannel feed = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", config.port()));
             PeregrineMoldStreamSender sender = new PeregrineMoldStreamSender(config, StreamLoss.NONE)) {
            long sequence = 0;
            for (; sequence < 200 * 256; sequence++) { // compiled, a batch takes well under the flush delay
                assertThat(sender.offer(sequence)).isTrue();
                if (sequence % 256 == 255) {
                    sender.flush();
                }
            }
            assertThat(sender.flush()).isTrue(); // nothing offered since the last flush: the rest leaves
            final long before = sender.packetsSent(); // and the first heartbeat is 1 s away
            for (final long end = sequence + 10 * 256; sequence < end; sequence++) {
                assertThat(sender.offer(sequence)).isTrue();
                if (sequence % 256 == 255) {
                    sender.flush();
                }
            }
            final long full = sender.packetsSent() - before;
            // every packet full but now and then one whose flush delay (1 ms) ran out while this thread was
            // descheduled; a half-full packet at each batch's end would make 70
            assertThat(full).as("%d messages per packet, not sent half full at a batch's end", perPacket)
                .isBetween((long)10 * 256 / perPacket, 10L * 256 / perPacket + 3);

            assertThat(sender.flush()).as("a flush with nothing offered since the last one sends the rest").isTrue();
            assertThat(sender.packetsSent() - before).isEqualTo(full + 1);
        }
    }
}
