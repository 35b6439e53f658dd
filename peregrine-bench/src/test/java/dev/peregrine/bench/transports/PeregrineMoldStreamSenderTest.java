package dev.peregrine.bench.transports;

import dev.peregrine.bench.run.RunEnvironment;
import dev.peregrine.mold.MoldUDP64Layout;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.StreamLoss;
import dev.peregrine.peers.support.FreePorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The throughput mode's MoldUDP64 sender: batches leave in full packets, a flush after the last sends the rest,
 * and re-requests are answered after every run of messages, not only at a flush.
 */
@Timeout(60)
class PeregrineMoldStreamSenderTest {
    @Test
    @SuppressWarnings("try") // the feed socket is only there to be bound
    void shouldSendBatchesInFullPacketsAndTheRestWhenFlushedWithNothingNewOffered() throws IOException {
        final BenchConfig config = new BenchConfig("127.0.0.1", FreePorts.block("127.0.0.1",
            BenchConfig.PORTS_PER_RESPONDER), 32, Path.of("target"), true);
        final int perPacket = MoldUDP64Layout.DEFAULT_MAX_PAYLOAD / (32 + MoldUDP64Layout.BLOCK_HEADER_LENGTH);
        // a socket on the feed's port, as in a run: the segmenting publisher's socket is connected, and a send to
        // a port nobody listens on fails on the next send (the ICMP error), which would count as not sent
        try (DatagramChannel feed = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", config.port()));
             // a flush delay of a minute: no packet leaves because this thread was descheduled with one half full
             PeregrineMoldStreamSender sender = new PeregrineMoldStreamSender(config, StreamLoss.NONE, 60_000_000_000L)) {
            long sequence = 0;
            for (; sequence < 200 * 256; sequence++) {
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
            // every packet full (the batches began part-way into a packet); a half-full packet at each batch's end
            // would make 70
            assertThat(full).as("%d messages per packet, not sent half full at a batch's end", perPacket)
                .isBetween((long)10 * 256 / perPacket, 10L * 256 / perPacket + 1);

            assertThat(sender.flush()).as("a flush with nothing offered since the last one sends the rest").isTrue();
            assertThat(sender.packetsSent() - before).isEqualTo(full + 1);
        }
    }

    @Test
    @SuppressWarnings("try") // the feed socket is only there to be bound
    void shouldAnswerAReRequestAfterARunWithoutWaitingForTheFlush() throws IOException {
        final BenchConfig config = new BenchConfig("127.0.0.1", FreePorts.block("127.0.0.1",
            BenchConfig.PORTS_PER_RESPONDER), 32, Path.of("target"), true);
        try (DatagramChannel feed = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", config.port()));
             DatagramChannel requester = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
             PeregrineMoldStreamSender sender = new PeregrineMoldStreamSender(config, StreamLoss.NONE, 60_000_000_000L)) {
            assertThat(sender.offer(0, 200)).isEqualTo(200);
            sender.flush(); // the full packets
            assertThat(sender.flush()).isTrue(); // and the rest: messages 1..200 are in the store
            final MemorySegment request = Arena.ofAuto().allocate(MoldUDP64Layout.REQUEST_LENGTH);
            MoldUDP64Layout.putRequest(request, 0, MoldUDP64Layout.session(PeregrineMoldStreamSender.SESSION), 5, 3);
            requester.send(request.asByteBuffer(), PeregrineUdpBench.address(config,
                PeregrineMoldStreamReceiver.REQUEST_PORT_OFFSET)); // on loopback, in the server's socket on return
            requester.configureBlocking(false);

            assertThat(sender.offer(200, 10)).isEqualTo(10); // a run, no flush

            final ByteBuffer answer = ByteBuffer.allocate(2048);
            assertThat(requester.receive(answer)).as("answered during the run's call").isNotNull();
            final MemorySegment packet = MemorySegment.ofBuffer(answer.flip());
            assertThat(MoldUDP64Layout.sequence(packet, 0)).isEqualTo(5);
            assertThat(MoldUDP64Layout.count(packet, 0)).isEqualTo(3);
        }
    }
}
