package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.ChannelHandler;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Answers sent on a channel from inside its own {@code onMessage} go out together after the read's last
 * frame: one write per read that delivered frames, counted exactly against the transport's count of such reads,
 * so a hundred frames that arrive in one segment are echoed in one write, not a hundred, in order.
 * A send from outside a delivery is written at once, and a batch larger than half the outbound buffer is
 * written as it grows, so coalescing never turns into back-pressure.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpWriteCoalescingTest {
    /** Echoes every message on its channel and counts refusals. */
    private static final class Echo implements ChannelHandler {
        TcpTransport transport;
        long refused;

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            if (transport.send(channelId, buffer, offset, length) < 0) {
                refused++;
            }
        }
    }

    private static void writeFrames(final Socket peer, final int count, final int payload) throws IOException {
        final DataOutputStream out = new DataOutputStream(new java.io.BufferedOutputStream(peer.getOutputStream(), 1 << 20));
        for (int i = 0; i < count; i++) {
            out.writeInt(payload);
            out.writeInt(i);
            out.write(new byte[payload - 4]);
        }
        out.flush();
    }

    private static void readFrames(final Socket peer, final int count, final int payload) throws IOException {
        final DataInputStream in = new DataInputStream(peer.getInputStream());
        final byte[] rest = new byte[payload - 4];
        for (int i = 0; i < count; i++) {
            assertThat(in.readInt()).isEqualTo(payload);
            assertThat(in.readInt()).isEqualTo(i);
            in.readFully(rest);
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldEchoEveryReadsFramesInOneWrite(final boolean readPolling) throws Exception {
        final Echo echo = new Echo();
        final TcpOptions options = new TcpOptions().readPolling(readPolling).framing(Framing.parse("length:4be"));
        try (TcpTestRig rig = new TcpTestRig(options, echo); Socket peer = new Socket()) {
            echo.transport = rig.transport;
            peer.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();
            final long before = rig.transport.socketWrites(id);
            final long decodesBefore = rig.transport.deliveringDecodes(id);

            writeFrames(peer, 100, 64); // 6.8 KB in one write: one segment on loopback, usually one read
            rig.pollUntil(() -> rig.count(ChannelEvent.Message.class) == 100);
            rig.pollUntil(() -> rig.transport.pendingBytes(id) == 0);
            readFrames(peer, 100, 64);

            final long reads = rig.transport.deliveringDecodes(id) - decodesBefore;
            assertThat(reads).as("reads that delivered the 100 frames (all were in the socket before the first)")
                .isBetween(1L, 99L);
            assertThat(rig.transport.socketWrites(id) - before).as("writes for 100 echoes in %d reads", reads)
                .isEqualTo(reads);
            assertThat(echo.refused).isZero();

            assertThat(rig.transport.send(id, TcpTestRig.text("x"), 0, 1)).as("outside a delivery: appended").isEqualTo(5);
            rig.reactor.doWork(); // and written by the next duty cycle
            assertThat(new DataInputStream(peer.getInputStream()).readInt()).isEqualTo(1);
            assertThat(rig.errors).isEmpty();
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldWriteALastReplySentJustBeforeClosingFromOnMessage(final boolean readPolling) throws Exception {
        final TcpTransport[] transport = new TcpTransport[1];
        final ChannelHandler replyAndClose = (channelId, buffer, offset, length) -> {
            transport[0].send(channelId, TcpTestRig.text("bye"), 0, 3);
            transport[0].close(channelId);
        };
        final TcpOptions options = new TcpOptions().readPolling(readPolling).framing(Framing.parse("length:4be"));
        try (TcpTestRig rig = new TcpTestRig(options, replyAndClose); Socket peer = new Socket()) {
            transport[0] = rig.transport;
            peer.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));

            writeFrames(peer, 1, 64);
            rig.pollUntil(() -> rig.has(ChannelEvent.Closed.class));

            final DataInputStream in = new DataInputStream(peer.getInputStream());
            assertThat(in.readInt()).isEqualTo(3);
            assertThat(in.readNBytes(3)).isEqualTo("bye".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            assertThat(in.read()).as("then the end of the stream").isEqualTo(-1);
            assertThat(rig.errors).isEmpty();
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldWriteABatchLargerThanHalfTheOutboundBufferAsItGrowsWithoutRefusingAnything(final boolean readPolling)
        throws Exception {
        final Echo echo = new Echo();
        // a 256 KB read of 1 KB frames answered into a 64 KB outbound buffer: 32 KB of answers at a time
        final TcpOptions options = new TcpOptions().readPolling(readPolling).framing(Framing.parse("length:4be"))
            .receiveBufferSize(256 * 1024).outboundBufferSize(64 * 1024);
        try (TcpTestRig rig = new TcpTestRig(options, echo); Socket peer = new Socket()) {
            echo.transport = rig.transport;
            peer.setReceiveBufferSize(1 << 20);
            peer.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();

            writeFrames(peer, 1000, 1024);
            rig.pollUntil(() -> rig.count(ChannelEvent.Message.class) == 1000);
            rig.pollUntil(() -> rig.transport.pendingBytes(id) == 0);
            readFrames(peer, 1000, 1024);

            assertThat(echo.refused).as("echoes refused for want of room").isZero();
            assertThat(rig.errors).isEmpty();
        }
    }
}
