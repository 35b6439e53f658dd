package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.CloseReason;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static dev.peregrine.tcp.TcpTestRig.message;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Peers that misbehave, through raw sockets: every frame arrives exactly once whatever the segmentation,
 * and a malformed or oversized frame closes that connection only, with the reason.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TcpBadPeerTest {
    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldDeliverEveryFrameOnceWhenPeerSendsOneByteAtATime(final boolean readPolling) throws Exception {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().readPolling(readPolling).framing(Framing.parse("length:2be")));
             Socket peer = new Socket()) {
            peer.setTcpNoDelay(true);
            peer.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();
            final List<ChannelEvent.Message> expected = new ArrayList<>();
            final OutputStream out = peer.getOutputStream();

            for (int i = 0; i < 40; i++) {
                final byte[] payload = ("frame " + i).getBytes(StandardCharsets.US_ASCII);
                expected.add(new ChannelEvent.Message(id, payload));
                final byte[] frame = new byte[2 + payload.length];
                frame[1] = (byte)payload.length;
                System.arraycopy(payload, 0, frame, 2, payload.length);
                for (final byte b : frame) {
                    out.write(b);
                    out.flush();
                    rig.reactor.doWork(); // loopback delivers within the write: each read sees about one byte
                    rig.reactor.doWork();
                }
            }
            rig.pollUntil(() -> rig.count(ChannelEvent.Message.class) == expected.size());

            assertThat(rig.all(ChannelEvent.Message.class)).containsExactlyElementsOf(expected);
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldDeliverManyFramesFromOneSegmentInOrder(final boolean readPolling) throws Exception {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().readPolling(readPolling).framing(Framing.line()).receiveBufferSize(4096));
             Socket peer = new Socket()) {
            peer.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();
            final StringBuilder segment = new StringBuilder();
            final List<ChannelEvent.Message> expected = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                segment.append("frame-").append(i).append('\n');
                expected.add(message(id, "frame-" + i));
            }

            peer.getOutputStream().write(segment.toString().getBytes(StandardCharsets.US_ASCII));
            rig.pollUntil(() -> rig.count(ChannelEvent.Message.class) == expected.size());
            // nothing more (no frame twice): proven by a marker frame sent after them, not by a quiet time
            peer.getOutputStream().write("marker\n".getBytes(StandardCharsets.US_ASCII));
            expected.add(message(id, "marker"));
            rig.pollUntil(() -> rig.all(ChannelEvent.Message.class).contains(message(id, "marker")));

            assertThat(rig.all(ChannelEvent.Message.class)).containsExactlyElementsOf(expected);
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldCloseOnlyTheConnectionWhoseLengthFieldExceedsTheMaximum(final boolean readPolling) throws Exception {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().readPolling(readPolling).framing(Framing.parse("length:4be")).maxFrameLength(65536));
             Socket bad = new Socket(); Socket good = new Socket()) {
            final InetSocketAddress address = rig.listen();
            bad.connect(address);
            rig.pollUntil(() -> rig.count(ChannelEvent.Accepted.class) == 1);
            good.connect(address);
            rig.pollUntil(() -> rig.count(ChannelEvent.Accepted.class) == 2);
            final long badId = rig.all(ChannelEvent.Accepted.class).get(0).channelId();
            final long goodId = rig.all(ChannelEvent.Accepted.class).get(1).channelId();

            bad.getOutputStream().write(new byte[] {(byte)0xFF, (byte)0xFF, (byte)0xFF, (byte)0xFF, 1, 2, 3});
            rig.pollUntil(() -> rig.has(ChannelEvent.Closed.class));
            good.getOutputStream().write(new byte[] {0, 0, 0, 2, 'o', 'k'});
            rig.pollUntil(() -> rig.has(ChannelEvent.Message.class));

            assertThat(rig.all(ChannelEvent.Closed.class)).containsExactly(
                new ChannelEvent.Closed(badId, CloseReason.ERROR, "frame length 4294967295 exceeds maxFrameLength=65536"));
            assertThat(rig.all(ChannelEvent.Message.class)).containsExactly(message(goodId, "ok"));
            assertThat(bad.getInputStream().read()).isEqualTo(-1);
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldCloseTheConnectionOnANegativeEightByteLength(final boolean readPolling) throws Exception {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().readPolling(readPolling).framing(Framing.parse("length:8be")));
             Socket bad = new Socket()) {
            bad.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));

            bad.getOutputStream().write(new byte[] {(byte)0x80, 0, 0, 0, 0, 0, 0, 1});
            rig.pollUntil(() -> rig.has(ChannelEvent.Closed.class));

            final ChannelEvent.Closed closed = rig.first(ChannelEvent.Closed.class);
            assertThat(closed.reason()).isEqualTo(CloseReason.ERROR);
            assertThat(closed.detail()).isEqualTo("frame length -9223372036854775807 is negative");
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldCloseTheConnectionWhenALineRunsPastTheMaximumWithoutADelimiter(final boolean readPolling) throws Exception {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().readPolling(readPolling).framing(Framing.crlf()).maxFrameLength(100));
             Socket bad = new Socket()) {
            bad.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));

            bad.getOutputStream().write(new byte[500]);
            rig.pollUntil(() -> rig.has(ChannelEvent.Closed.class));

            final ChannelEvent.Closed closed = rig.first(ChannelEvent.Closed.class);
            assertThat(closed.reason()).isEqualTo(CloseReason.ERROR);
            assertThat(closed.detail()).contains("exceeds maxFrameLength=100");
            assertThat(rig.has(ChannelEvent.Message.class)).isFalse();
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldReportResetWhenThePeerResetsMidFrame(final boolean readPolling) throws Exception {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().readPolling(readPolling).framing(Framing.parse("length:4be")))) {
            final Socket peer = new Socket();
            peer.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();

            peer.getOutputStream().write(new byte[] {0, 0, 0, 10, 'h', 'a', 'l'});
            rig.pollUntil(() -> rig.transport.counters().bytesIn.get() == 7); // the partial frame is read: an event
            peer.setSoLinger(true, 0); // close sends RST instead of FIN
            peer.close();
            rig.pollUntil(() -> rig.has(ChannelEvent.Closed.class));

            final ChannelEvent.Closed closed = rig.first(ChannelEvent.Closed.class);
            assertThat(closed.channelId()).isEqualTo(id);
            assertThat(closed.reason()).isEqualTo(CloseReason.RESET);
            assertThat(closed.detail()).containsIgnoringCase("reset");
            assertThat(rig.has(ChannelEvent.Message.class)).isFalse();
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldReportAnOrderlyCloseInsideAFrameAsByPeer(final boolean readPolling) throws Exception {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().readPolling(readPolling).framing(Framing.parse("length:2le")))) {
            try (Socket peer = new Socket()) {
                peer.connect(rig.listen());
                rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
                peer.getOutputStream().write(new byte[] {2, 0, 'o', 'k', 9, 0, 'x'});
            }
            rig.pollUntil(() -> rig.has(ChannelEvent.Closed.class));

            final long id = rig.first(ChannelEvent.Accepted.class).channelId();
            assertThat(rig.all(ChannelEvent.Message.class)).containsExactly(message(id, "ok"));
            assertThat(rig.first(ChannelEvent.Closed.class)).isEqualTo(new ChannelEvent.Closed(id, CloseReason.BY_PEER,
                "end of stream inside a frame (3 bytes of it received)"));
        }
    }
}
