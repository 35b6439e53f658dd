package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.SendResult;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Closing writes what was sent first: {@code close(id)} delivers every frame sent before it, within the
 * linger timeout (past it the rest is discarded and {@code onClosed} says how much), and a peer that
 * half-closes still gets the replies to what it sent. A close that discards unsent bytes resets the
 * connection, so that the peer does not take the cut stream for a whole one. Small socket buffers keep most of
 * the bytes in the transport's outbound buffer when the close comes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpGracefulCloseTest {
    private static final int SOCKET_BUFFER = 16 * 1024;
    private static final int FRAMES = 300;
    private static final int PAYLOAD = 1000;
    private static final int REQUESTS = 200;
    private static final int REPLY = 4000;

    /** How the close that cuts the stream comes. */
    enum Cut {
        LINGER_EXPIRY, TRANSPORT_CLOSE
    }

    private static TcpOptions options(final boolean readPolling) {
        return new TcpOptions().readPolling(readPolling).outboundBufferSize(1024 * 1024).socketSendBufferSize(SOCKET_BUFFER);
    }

    private static Socket peer(final TcpTestRig rig) throws IOException {
        final Socket peer = new Socket();
        peer.setReceiveBufferSize(SOCKET_BUFFER);
        peer.setSoTimeout(20_000);
        peer.connect(rig.listen());
        rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
        return peer;
    }

    private static void sendNumbered(final TcpTestRig rig, final long id, final int frames) {
        final MemorySegment payload = Arena.ofAuto().allocate(PAYLOAD);
        for (int sequence = 0; sequence < frames; sequence++) {
            payload.set(ValueLayout.JAVA_INT_UNALIGNED, 0, sequence);
            assertThat(rig.transport.send(id, payload, 0, PAYLOAD)).isNotNegative();
        }
    }

    /**
     * Reads frames to the end of the stream, each checked for its length and number; returns the count of
     * whole frames (a frame cut short by the end of the stream is not counted).
     */
    private static int readToEnd(final Socket peer, final int length) {
        try {
            final DataInputStream in = new DataInputStream(peer.getInputStream());
            final byte[] payload = new byte[length];
            int count = 0;
            for (int header = in.read(); header >= 0; header = in.read()) {
                final int second = in.read();
                final int third = in.read();
                final int fourth = in.read();
                if ((second | third | fourth) < 0) {
                    return count;
                }
                final int frameLength = (header << 24) | (second << 16) | (third << 8) | fourth;
                assertThat(frameLength).isEqualTo(length);
                if (in.readNBytes(payload, 0, length) < length) {
                    return count;
                }
                assertThat(MemorySegment.ofArray(payload).get(ValueLayout.JAVA_INT_UNALIGNED, 0)).isEqualTo(count);
                count++;
            }
            return count;
        } catch (final IOException ex) {
            throw new AssertionError(ex);
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldDeliverEveryFrameSentBeforeClose(final boolean readPolling) throws Exception {
        try (TcpTestRig rig = new TcpTestRig(options(readPolling)); Socket peer = peer(rig)) {
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();
            sendNumbered(rig, id, FRAMES);

            rig.transport.close(id);
            assertThat(rig.transport.send(id, MemorySegment.ofArray(new byte[8]), 0, 8)).as("closing")
                .isEqualTo(SendResult.CLOSED);
            final CompletableFuture<Integer> reader = CompletableFuture.supplyAsync(() -> readToEnd(peer, PAYLOAD));
            rig.pollUntil(() -> reader.isDone() && rig.has(ChannelEvent.Closed.class));

            assertThat(reader.get()).isEqualTo(FRAMES);
            assertThat(rig.recorder.events()).as("nothing between the close and onClosed").containsExactly(
                rig.first(ChannelEvent.Listening.class), rig.first(ChannelEvent.Accepted.class),
                new ChannelEvent.Closed(id, CloseReason.LOCAL, "closed by the application"));
            assertThat(rig.errors).isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void shouldResetTheConnectionWhenACloseDiscardsUnsentBytes(final Cut cut) throws Exception {
        try (TcpTestRig rig = new TcpTestRig(options(false).lingerTimeout(50, TimeUnit.MILLISECONDS));
            Socket peer = peer(rig)) {
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();
            sendNumbered(rig, id, FRAMES); // the peer does not read: most of it waits in the outbound buffer
            rig.reactor.doWork();

            if (cut == Cut.LINGER_EXPIRY) {
                rig.transport.close(id);
                rig.pollUntil(() -> rig.has(ChannelEvent.Closed.class));
            } else {
                rig.transport.close();
            }
            final ChannelEvent.Closed closed = rig.all(ChannelEvent.Closed.class).stream()
                .filter(event -> event.channelId() == id).findFirst().orElseThrow(); // not the server's
            assertThat(closed.detail()).matches(".*; [1-9][0-9]* unsent bytes discarded");
            // the socket is released by the reactor's next select, once its key is gone
            final CompletableFuture<PeerStream.Received> reader = CompletableFuture.supplyAsync(() -> PeerStream.readAll(peer));
            rig.pollUntil(reader::isDone);

            final long discarded = Long.parseLong(closed.detail().replaceAll(".*; ([0-9]+) unsent bytes discarded", "$1"));
            assertThat(reader.get().end()).as("how the peer's stream ended").isEqualTo("reset");
            assertThat(reader.get().bytes()).isLessThanOrEqualTo((long)FRAMES * (4 + PAYLOAD) - discarded);
            assertThat(rig.errors).isEmpty();
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldDiscardWhatIsLeftWhenTheLingerTimeoutExpires(final boolean readPolling) throws Exception {
        try (TcpTestRig rig = new TcpTestRig(options(readPolling).lingerTimeout(50, TimeUnit.MILLISECONDS));
            Socket peer = peer(rig)) {
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();
            sendNumbered(rig, id, FRAMES);

            rig.transport.close(id); // the peer never reads
            rig.pollUntil(() -> rig.has(ChannelEvent.Closed.class));

            final ChannelEvent.Closed closed = rig.first(ChannelEvent.Closed.class);
            assertThat(closed.reason()).isEqualTo(CloseReason.LOCAL);
            assertThat(closed.detail()).matches(
                "closed by the application; the linger timeout of 50 ms expired; [1-9][0-9]* unsent bytes discarded");
            final long discarded = Long.parseLong(closed.detail().replaceAll(".*; ([0-9]+) unsent bytes discarded", "$1"));
            final long sent = (long)FRAMES * (4 + PAYLOAD);
            final CompletableFuture<PeerStream.Received> reader = CompletableFuture.supplyAsync(() -> PeerStream.readAll(peer));
            rig.pollUntil(reader::isDone);
            assertThat(reader.get().bytes()).as("what the peer got and what was discarded")
                .isLessThanOrEqualTo(sent - discarded);
            assertThat(reader.get().end()).as("a cut stream").isEqualTo("reset");
            assertThat(rig.count(ChannelEvent.Closed.class)).isEqualTo(1);
            assertThat(rig.errors).isEmpty();
        }
    }

    @Test
    void shouldCountTheLingerTimeoutFromTheCloseWhenTheApplicationClosesBetweenDutyCycles() throws Exception {
        final long[] clock = {TimeUnit.SECONDS.toNanos(1)};
        try (TcpTestRig rig = new TcpTestRig(options(false).lingerTimeout(1, TimeUnit.SECONDS), () -> clock[0]);
            Socket peer = peer(rig)) {
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();
            sendNumbered(rig, id, FRAMES); // the peer does not read: the close has to linger
            rig.reactor.doWork();

            clock[0] += TimeUnit.SECONDS.toNanos(10); // the application's own loop does something else meanwhile
            rig.transport.close(id);
            rig.reactor.doWork();
            assertThat(rig.has(ChannelEvent.Closed.class)).as("10 s passed before the close, none since").isFalse();
            clock[0] += TimeUnit.MILLISECONDS.toNanos(999);
            rig.reactor.doWork();
            assertThat(rig.has(ChannelEvent.Closed.class)).as("999 ms into a linger of 1 s").isFalse();
            clock[0] += TimeUnit.MILLISECONDS.toNanos(1);
            rig.pollUntil(() -> rig.has(ChannelEvent.Closed.class));

            assertThat(rig.first(ChannelEvent.Closed.class).detail())
                .startsWith("closed by the application; the linger timeout of 1000 ms expired; ");
            final CompletableFuture<PeerStream.Received> reader = CompletableFuture.supplyAsync(() -> PeerStream.readAll(peer));
            rig.pollUntil(reader::isDone);
            assertThat(reader.get().end()).isEqualTo("reset");
            assertThat(rig.errors).isEmpty();
        }
    }

    @Test
    void shouldLingerWithoutEndWhenTheLingerTimeoutIsTheLongestThereIs() throws Exception {
        final long[] clock = {TimeUnit.SECONDS.toNanos(1)};
        final TcpOptions options = options(false).lingerTimeout(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
        try (TcpTestRig rig = new TcpTestRig(options, () -> clock[0]); Socket peer = peer(rig)) {
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();
            sendNumbered(rig, id, FRAMES); // the peer does not read: the close has to linger
            rig.reactor.doWork();

            rig.transport.close(id);
            rig.reactor.doWork();
            clock[0] += TimeUnit.MINUTES.toNanos(1);
            rig.reactor.doWork();
            assertThat(rig.has(ChannelEvent.Closed.class)).as("still lingering a minute after the close").isFalse();
            assertThat(rig.transport.send(id, TcpTestRig.text("late"), 0, 4)).as("closing").isEqualTo(SendResult.CLOSED);

            rig.transport.abort(id);
            assertThat(rig.first(ChannelEvent.Closed.class).detail()).startsWith("aborted by the application; ");
            final CompletableFuture<PeerStream.Received> reader = CompletableFuture.supplyAsync(() -> PeerStream.readAll(peer));
            rig.pollUntil(reader::isDone);
            assertThat(reader.get().end()).isEqualTo("reset");
            assertThat(rig.errors).isEmpty();
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldSendTheRepliesToAPeerThatHalfClosesBeforeClosing(final boolean readPolling) throws Exception {
        final TcpTransport[] transport = new TcpTransport[1];
        final MemorySegment reply = Arena.ofAuto().allocate(REPLY);
        final ChannelHandler replier = (channelId, buffer, offset, length) -> {
            MemorySegment.copy(buffer, offset, reply, 0, length);
            assertThat(transport[0].send(channelId, reply, 0, REPLY)).isNotNegative();
        };
        try (TcpTestRig rig = new TcpTestRig(options(readPolling), replier); Socket peer = peer(rig)) {
            transport[0] = rig.transport;
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();
            final OutputStream out = peer.getOutputStream();
            final byte[] request = new byte[8];
            for (int sequence = 0; sequence < REQUESTS; sequence++) {
                MemorySegment.ofArray(request).set(ValueLayout.JAVA_INT_UNALIGNED, 4, sequence);
                request[3] = 4; // length 4, then the sequence number
                out.write(request);
            }
            peer.shutdownOutput();

            // the peer reads nothing until the transport has seen the end of its stream
            rig.pollUntil(() -> !rig.transport.isConnected(id));
            final CompletableFuture<Integer> reader = CompletableFuture.supplyAsync(() -> readToEnd(peer, REPLY));
            rig.pollUntil(() -> reader.isDone() && rig.has(ChannelEvent.Closed.class));

            assertThat(reader.get()).as("every reply").isEqualTo(REQUESTS);
            assertThat(rig.count(ChannelEvent.Message.class)).isEqualTo(REQUESTS);
            assertThat(rig.all(ChannelEvent.Closed.class)).containsExactly(
                new ChannelEvent.Closed(id, CloseReason.BY_PEER, "end of stream"));
            assertThat(rig.errors).isEmpty();
        }
    }
}
