package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.SendResult;
import dev.peregrine.internal.jfr.FlightRecording;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JFR events of TCP channels, recorded in-process and read back from the dumped file: opened, closed
 * with the reason and detail the handler got, a rejected frame, and a back-pressured period.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpJfrEventsTest {
    private static final int OUTBOUND = 64 * 1024;
    private static final int PAYLOAD = 1000;

    /** The events of one name about one channel: an earlier test's reactor may still be running. */
    private static List<RecordedEvent> of(final FlightRecording recording, final String name, final long channelId) {
        return recording.named(name).stream().filter(event -> event.getLong("channelId") == channelId).toList();
    }

    @Test
    void shouldRecordChannelsOpenedAndClosedWithTheirReasons() {
        try (FlightRecording recording = new FlightRecording(); TcpTestRig rig = new TcpTestRig(new TcpOptions())) {
            final InetSocketAddress address = rig.listen();
            final long serverId = rig.first(ChannelEvent.Listening.class).serverId();
            final long clientId = rig.transport.connect(address);
            rig.pollUntil(() -> rig.has(ChannelEvent.Connected.class) && rig.has(ChannelEvent.Accepted.class));
            final ChannelEvent.Accepted accepted = rig.first(ChannelEvent.Accepted.class);
            final long serverSideId = accepted.channelId();

            rig.transport.close(clientId);
            rig.pollUntil(() -> rig.count(ChannelEvent.Closed.class) == 2);

            final RecordedEvent connected = of(recording, "ChannelOpened", clientId).getFirst();
            assertThat(of(recording, "ChannelOpened", clientId)).hasSize(1);
            assertThat(connected.getString("transport")).isEqualTo("tcp");
            assertThat(connected.getLong("serverId")).isZero();
            assertThat(connected.getString("remoteAddress")).isEqualTo(address.toString());
            final RecordedEvent acceptedEvent = of(recording, "ChannelOpened", serverSideId).getFirst();
            assertThat(of(recording, "ChannelOpened", serverSideId)).hasSize(1);
            assertThat(acceptedEvent.getLong("serverId")).isEqualTo(serverId);
            assertThat(acceptedEvent.getString("remoteAddress")).isEqualTo(accepted.remoteAddress().toString());

            assertThat(of(recording, "ChannelClosed", clientId)).singleElement().satisfies(closed -> {
                assertThat(closed.getString("transport")).isEqualTo("tcp");
                assertThat(closed.getString("reason")).isEqualTo("LOCAL");
                assertThat(closed.getString("detail")).isEqualTo("closed by the application");
                assertThat(closed.getLong("bytesDiscarded")).isZero();
                assertThat(closed.getString("remoteAddress")).isEqualTo(address.toString());
            });
            assertThat(of(recording, "ChannelClosed", serverSideId)).singleElement().satisfies(closed -> {
                assertThat(closed.getString("reason")).isEqualTo("BY_PEER");
                assertThat(closed.getString("detail")).isEqualTo("end of stream");
            });
        }
    }

    @Test
    void shouldRecordARejectedFrameAndTheCloseItCaused() throws Exception {
        try (FlightRecording recording = new FlightRecording();
             TcpTestRig rig = new TcpTestRig(new TcpOptions().framing(Framing.parse("length:4be")).maxFrameLength(65536));
             Socket bad = new Socket()) {
            bad.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();

            bad.getOutputStream().write(new byte[] {(byte)0xFF, (byte)0xFF, (byte)0xFF, (byte)0xFF, 1, 2, 3});
            rig.pollUntil(() -> rig.has(ChannelEvent.Closed.class));

            final String reason = "frame length 4294967295 exceeds maxFrameLength=65536";
            assertThat(rig.first(ChannelEvent.Closed.class).detail()).isEqualTo(reason);
            assertThat(of(recording, "FrameRejected", id)).singleElement().satisfies(rejected -> {
                assertThat(rejected.getString("transport")).isEqualTo("tcp");
                assertThat(rejected.getString("reason")).isEqualTo(reason);
                assertThat(rejected.getString("remoteAddress")).isEqualTo(bad.getLocalSocketAddress().toString());
                assertThat(rejected.getString("localAddress")).isNull();
            });
            assertThat(of(recording, "ChannelClosed", id)).singleElement().satisfies(closed -> {
                assertThat(closed.getString("reason")).isEqualTo("ERROR");
                assertThat(closed.getString("detail")).isEqualTo(reason);
            });
        }
    }

    @Test
    void shouldRecordABackPressuredPeriodFromTheFirstRefusedSendUntilTheBufferDrained() throws Exception {
        try (FlightRecording recording = new FlightRecording(); TcpTestRig rig = new TcpTestRig(options()); Socket peer = new Socket()) {
            peer.setReceiveBufferSize(16 * 1024);
            peer.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();
            final MemorySegment payload = MemorySegment.ofArray(new byte[PAYLOAD]);

            final long accepted = sendUntilBackPressured(rig, id, payload);
            for (int i = 0; i < 4; i++) { // nothing runs in between: each is refused, in the same period
                assertThat(rig.transport.send(id, payload, 0, PAYLOAD)).isEqualTo(SendResult.BACK_PRESSURED);
            }
            assertThat(rig.transport.tryClaim(id, PAYLOAD)).isEqualTo(SendResult.BACK_PRESSURED);
            final long bytes = accepted * (4 + PAYLOAD);
            final CompletableFuture<Long> reader = CompletableFuture.supplyAsync(() -> drain(peer, bytes));
            rig.pollUntil(reader::isDone);
            rig.pollUntil(() -> rig.transport.pendingBytes(id) == 0);
            assertThat(reader.get()).isEqualTo(bytes);
            rig.transport.close(id);
            rig.pollUntil(() -> rig.has(ChannelEvent.Closed.class));

            assertThat(of(recording, "BackPressure", id)).singleElement().satisfies(period -> {
                assertThat(period.getString("transport")).isEqualTo("tcp");
                assertThat(period.getLong("refusedSends")).isEqualTo(6);
                assertThat(period.getLong("outboundCapacity")).isEqualTo(OUTBOUND);
                assertThat(period.getString("endedBy")).isEqualTo("drained");
                assertThat(period.getString("remoteAddress")).isEqualTo(peer.getLocalSocketAddress().toString());
            });
        }
    }

    @Test
    void shouldEndABackPressuredPeriodWhenTheChannelClosesAndCountTheDiscardedBytes() throws Exception {
        try (FlightRecording recording = new FlightRecording(); TcpTestRig rig = new TcpTestRig(options()); Socket peer = new Socket()) {
            peer.setReceiveBufferSize(16 * 1024);
            peer.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();
            sendUntilBackPressured(rig, id, MemorySegment.ofArray(new byte[PAYLOAD]));
            final long pending = rig.transport.pendingBytes(id);
            assertThat(pending).isPositive();

            rig.transport.abort(id);

            assertThat(of(recording, "BackPressure", id)).singleElement().satisfies(period -> {
                assertThat(period.getLong("refusedSends")).isEqualTo(1);
                assertThat(period.getString("endedBy")).isEqualTo("closed");
            });
            assertThat(of(recording, "ChannelClosed", id)).singleElement().satisfies(closed -> {
                assertThat(closed.getString("reason")).isEqualTo("LOCAL");
                assertThat(closed.getString("detail")).isEqualTo("aborted by the application; " + pending + " unsent bytes discarded");
                assertThat(closed.getLong("bytesDiscarded")).isEqualTo(pending);
            });
        }
    }

    private static TcpOptions options() {
        return new TcpOptions().framing(Framing.parse("length:4be")).maxFrameLength(PAYLOAD).outboundBufferSize(OUTBOUND)
            .socketSendBufferSize(16 * 1024);
    }

    /** Sends until the first refusal, running cycles in between; returns the frames taken. */
    private static long sendUntilBackPressured(final TcpTestRig rig, final long id, final MemorySegment payload) {
        for (long taken = 0; taken < 100_000; taken++) {
            if (rig.transport.send(id, payload, 0, PAYLOAD) == SendResult.BACK_PRESSURED) {
                return taken;
            }
            rig.reactor.doWork();
        }
        throw new AssertionError("never back-pressured");
    }

    private static long drain(final Socket peer, final long bytes) {
        try {
            final InputStream in = peer.getInputStream();
            final byte[] chunk = new byte[8192];
            long read = 0;
            while (read < bytes) {
                final int n = in.read(chunk, 0, (int)Math.min(chunk.length, bytes - read));
                if (n < 0) {
                    break;
                }
                read += n;
            }
            return read;
        } catch (final IOException ex) {
            throw new AssertionError(ex);
        }
    }
}
