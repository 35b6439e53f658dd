package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.SendResult;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pausing a channel's reading: nothing is delivered while paused, not even frames already read; TCP's flow
 * control then stops the peer, whose writes back up; resuming delivers everything, in order, on a later
 * cycle. Both with reads on selector readiness and with read polling.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpReadPauseTest {
    private static final int PAYLOAD = 1000;
    private static final ValueLayout.OfInt BIG_ENDIAN_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** A marker frame: length 4, number -1. */
    private static final byte[] MARKER = {0, 0, 0, 4, -1, -1, -1, -1};

    /** Pauses the channel on the message with the given number; records every number it gets but the markers. */
    private static final class Pauser implements ChannelHandler {
        final List<Integer> numbers = new ArrayList<>();
        TcpTransport transport;
        int pauseOn = -1;
        long markerChannelId;

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            if (channelId == markerChannelId) {
                return; // the rig records it
            }
            final int number = buffer.get(BIG_ENDIAN_INT, offset);
            numbers.add(number);
            if (number == pauseOn) {
                assertThat(transport.pauseReading(channelId)).isZero();
            }
        }
    }

    private static TcpOptions options(final boolean readPolling) {
        return new TcpOptions().readPolling(readPolling).framing(Framing.parse("length:4be")).receiveBufferSize(64 * 1024)
            .socketReceiveBufferSize(16 * 1024);
    }

    /** Connects a second peer to the rig's server, for marker frames; returns the channel the rig accepted for it. */
    private static long connectMarkerPeer(final TcpTestRig rig, final Socket markerPeer, final InetSocketAddress address)
        throws IOException {
        final long accepted = rig.count(ChannelEvent.Accepted.class);
        markerPeer.connect(address);
        rig.pollUntil(() -> rig.count(ChannelEvent.Accepted.class) == accepted + 1);
        return rig.all(ChannelEvent.Accepted.class).getLast().channelId();
    }

    private static void writeFrames(final DataOutputStream out, final int first, final int count) throws IOException {
        final byte[] payload = new byte[PAYLOAD];
        for (int number = first; number < first + count; number++) {
            out.writeInt(PAYLOAD);
            payload[0] = (byte)(number >>> 24);
            payload[1] = (byte)(number >>> 16);
            payload[2] = (byte)(number >>> 8);
            payload[3] = (byte)number;
            out.write(payload);
        }
        out.flush();
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldDeliverNothingWhilePausedEvenWhatWasReadAndEverythingInOrderOnceResumed(final boolean readPolling)
        throws Exception {
        final Pauser pauser = new Pauser();
        try (TcpTestRig rig = new TcpTestRig(options(readPolling), pauser); Socket peer = new Socket();
             Socket markerPeer = new Socket()) {
            pauser.transport = rig.transport;
            final InetSocketAddress address = rig.listen();
            peer.connect(address);
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();
            pauser.markerChannelId = connectMarkerPeer(rig, markerPeer, address);
            pauser.pauseOn = 2;

            writeFrames(new DataOutputStream(peer.getOutputStream()), 0, 20); // 20 KB: one read takes several frames
            rig.pollUntil(() -> pauser.numbers.size() == 3);
            rig.awaitMarkerFrame(markerPeer, pauser.markerChannelId, MARKER); // sent after the 20 frames

            assertThat(pauser.numbers).as("the frame that paused is the last").containsExactly(0, 1, 2);
            assertThat(rig.transport.isReadingPaused(id)).isTrue();
            assertThat(rig.transport.pauseReading(id)).as("pausing twice does nothing").isZero();

            assertThat(rig.transport.resumeReading(id)).isZero();
            assertThat(pauser.numbers).as("nothing is delivered from inside resumeReading").hasSize(3);
            assertThat(rig.transport.isReadingPaused(id)).isFalse();
            rig.pollUntil(() -> pauser.numbers.size() == 20);

            final List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                expected.add(i);
            }
            assertThat(pauser.numbers).isEqualTo(expected);
            assertThat(rig.transport.resumeReading(id)).as("resuming twice does nothing").isZero();
            assertThat(rig.errors).isEmpty();
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldStopAPeerThatKeepsWritingThroughFlowControlAndLoseNothing(final boolean readPolling) throws Exception {
        final Pauser pauser = new Pauser();
        try (TcpTestRig rig = new TcpTestRig(options(readPolling), pauser); Socket peer = new Socket();
             Socket markerPeer = new Socket()) {
            pauser.transport = rig.transport;
            peer.setSendBufferSize(16 * 1024);
            final InetSocketAddress address = rig.listen();
            peer.connect(address);
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();
            pauser.markerChannelId = connectMarkerPeer(rig, markerPeer, address);
            pauser.pauseOn = 0;

            // the peer writes 20 MB with a blocking socket: while paused, its writes must stop part way
            final int frames = 20_000;
            final CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try {
                    writeFrames(new DataOutputStream(peer.getOutputStream()), 0, frames);
                } catch (final IOException ex) {
                    throw new IllegalStateException(ex);
                }
            });
            rig.pollUntil(() -> rig.transport.isReadingPaused(id));
            // bytes wait in the paused channel's socket (an event, read from /proc/net/tcp); then the marker, whose
            // select would find them readable were the channel still read
            rig.pollUntil(() -> receiveQueue(peer) > 0 || pauser.numbers.size() > 1);
            rig.awaitMarkerFrame(markerPeer, pauser.markerChannelId, MARKER);
            assertThat(pauser.numbers).containsExactly(0);
            // not a matter of time: while nothing reads, 20 MB cannot fit in the sockets' buffers (16 KB asked on each
            // side, the transport's 64 KB receive buffer), so the peer cannot be done, however long it had
            assertThat(writer).as("the peer is held back by TCP flow control").isNotDone();

            int pauses = 1;
            while (pauser.numbers.size() < frames) { // resume, take some, pause again
                assertThat(rig.transport.resumeReading(id)).isZero();
                final int before = pauser.numbers.size();
                pauser.pauseOn = before + 2_000;
                rig.pollUntil(() -> rig.transport.isReadingPaused(id) || pauser.numbers.size() == frames);
                assertThat(pauser.numbers.size()).isGreaterThan(before);
                pauses++;
            }

            writer.get(10, TimeUnit.SECONDS);
            for (int i = 0; i < frames; i++) {
                assertThat(pauser.numbers.get(i)).isEqualTo(i);
            }
            assertThat(pauses).isGreaterThanOrEqualTo(frames / 2_000);
            assertThat(rig.errors).isEmpty();
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldKeepSendingOnAPausedChannelAndRefuseUnknownIds(final boolean readPolling) throws Exception {
        try (TcpTestRig rig = new TcpTestRig(options(readPolling)); Socket peer = new Socket()) {
            peer.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();

            assertThat(rig.transport.pauseReading(id)).isZero();
            assertThat(rig.transport.send(id, TcpTestRig.text("abc"), 0, 3)).isNotNegative();
            rig.reactor.doWork();
            final DataInputStream in = new DataInputStream(peer.getInputStream());
            assertThat(in.readInt()).isEqualTo(3);

            rig.transport.close(id);
            rig.pollUntil(() -> rig.has(ChannelEvent.Closed.class));
            assertThat(rig.transport.pauseReading(id)).isEqualTo(SendResult.NOT_CONNECTED);
            assertThat(rig.transport.resumeReading(id)).isEqualTo(SendResult.NOT_CONNECTED);
            assertThat(rig.transport.isReadingPaused(id)).isFalse();
            assertThat(rig.transport.pauseReading(12345)).isEqualTo(SendResult.NOT_CONNECTED);
            assertThat(rig.errors).isEmpty();
        }
    }

    /**
     * Frames read in the same read as the one that paused, then the peer's end of stream: resumed between cycles,
     * the next cycle's read (selector or poller) comes before the deferred decode, and must not overtake it: the
     * frames first, then the close.
     */
    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldDeliverFramesReadBeforeAPauseWhenThePeerClosedMeanwhile(final boolean readPolling) throws Exception {
        final Pauser pauser = new Pauser();
        pauser.pauseOn = 1;
        try (TcpTestRig rig = new TcpTestRig(options(readPolling), pauser); Socket peer = new Socket();
             Socket markerPeer = new Socket()) {
            pauser.transport = rig.transport;
            final InetSocketAddress address = rig.listen();
            peer.connect(address);
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();
            pauser.markerChannelId = connectMarkerPeer(rig, markerPeer, address);
            final DataOutputStream out = new DataOutputStream(peer.getOutputStream());

            writeFrames(out, 1, 3); // one write: the three frames arrive together
            out.flush();
            rig.pollUntil(() -> !pauser.numbers.isEmpty());
            rig.awaitMarkerFrame(markerPeer, pauser.markerChannelId, MARKER);
            assertThat(pauser.numbers).containsExactly(1);
            peer.shutdownOutput(); // the end of stream waits in the kernel behind the pause
            awaitFinAcknowledged(peer); // the end of stream is in the server's socket now, not only sent
            assertThat(rig.transport.resumeReading(id)).isZero(); // between cycles
            rig.pollUntil(() -> rig.has(ChannelEvent.Closed.class));

            assertThat(pauser.numbers).containsExactly(1, 2, 3);
            assertThat(rig.first(ChannelEvent.Closed.class).channelId()).isEqualTo(id);
            assertThat(rig.first(ChannelEvent.Closed.class).detail()).isEqualTo("end of stream");
        }
    }

    /**
     * The bytes waiting unread in the receive queue of the server's end of the peer's connection, as
     * {@code /proc/net/tcp} tells (its {@code tx_queue:rx_queue} column), or 0 if the line is not there.
     */
    private static long receiveQueue(final Socket peer) {
        final String serverEnd = String.format(":%04X", peer.getPort());
        final String peerEnd = String.format(":%04X", peer.getLocalPort());
        for (final String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
            final java.nio.file.Path path = java.nio.file.Path.of(table);
            if (!java.nio.file.Files.exists(path)) {
                continue;
            }
            final List<String> lines;
            try {
                lines = java.nio.file.Files.readAllLines(path);
            } catch (final IOException ex) {
                throw new java.io.UncheckedIOException(ex);
            }
            for (final String line : lines) {
                final String[] fields = line.trim().split("\\s+");
                if (fields.length > 4 && fields[1].endsWith(serverEnd) && fields[2].endsWith(peerEnd)) {
                    return Long.parseLong(fields[4].substring(fields[4].indexOf(':') + 1), 16);
                }
            }
        }
        return 0;
    }

    /**
     * Waits until the peer's socket is in FIN_WAIT2, as /proc/net/tcp tells: the other side's kernel acknowledged
     * the FIN, so the end of stream waits in its receive queue. An event, where a sleep would only hope for it.
     */
    private static void awaitFinAcknowledged(final Socket peer) throws IOException {
        final String local = String.format(":%04X", peer.getLocalPort());
        final String remote = String.format(":%04X", peer.getPort());
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); // fails a hang only
        while (true) {
            for (final String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
                final java.nio.file.Path path = java.nio.file.Path.of(table);
                if (!java.nio.file.Files.exists(path)) {
                    continue;
                }
                for (final String line : java.nio.file.Files.readAllLines(path)) {
                    final String[] fields = line.trim().split("\\s+");
                    if (fields.length > 3 && fields[1].endsWith(local) && fields[2].endsWith(remote) && "05".equals(fields[3])) {
                        return; // 05: TCP_FIN_WAIT2
                    }
                }
            }
            assertThat(System.nanoTime()).as("the peer's FIN acknowledged within 10 s").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }
}
