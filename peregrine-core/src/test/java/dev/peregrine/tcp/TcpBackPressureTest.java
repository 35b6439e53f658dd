package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.SendResult;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A peer that does not read: the sender is told through {@link SendResult#BACK_PRESSURED}, the outbound
 * buffer never grows past its bound, nothing is dropped or reordered, and aborting with bytes pending is
 * safe.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpBackPressureTest {
    private static final int OUTBOUND = 64 * 1024;
    private static final int PAYLOAD = 1000;

    private static TcpOptions options(final boolean readPolling) {
        return new TcpOptions().readPolling(readPolling).framing(Framing.parse("length:4be")).outboundBufferSize(OUTBOUND)
            .socketSendBufferSize(16 * 1024);
    }

    /** Sends frames numbered from {@code first} until back-pressured; returns the next number to send. */
    private static int sendUntilBackPressured(final TcpTestRig rig, final long id, final int first) {
        final MemorySegment payload = Arena.ofAuto().allocate(PAYLOAD);
        for (int sequence = first; sequence < 100_000; sequence++) {
            payload.set(ValueLayout.JAVA_INT_UNALIGNED, 0, sequence);
            final long before = rig.transport.pendingBytes(id);
            final long result = rig.transport.send(id, payload, 0, PAYLOAD);
            if (result == SendResult.BACK_PRESSURED) {
                assertThat(rig.transport.pendingBytes(id)).as("a refused send takes nothing").isEqualTo(before);
                return sequence;
            }
            assertThat(result).isNotNegative().isLessThanOrEqualTo(OUTBOUND);
            rig.reactor.doWork();
        }
        throw new AssertionError("never back-pressured");
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldBackPressureWhenThePeerNeverReadsAndDeliverEverythingInOrderOnceItDoes(final boolean readPolling) throws Exception {
        try (TcpTestRig rig = new TcpTestRig(options(readPolling)); Socket peer = new Socket()) {
            peer.setReceiveBufferSize(16 * 1024);
            peer.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();

            int taken = sendUntilBackPressured(rig, id, 0);
            for (int round = 0; round < 3; round++) { // the kernel may take a little more: memory stays bounded
                // not a quiet window: nothing is claimed to stay away. The bound holds whatever the kernel takes
                // meanwhile, and cycles counted, not timed, give OP_WRITE its chances
                for (int cycle = 0; cycle < 1_000; cycle++) {
                    rig.reactor.doWork();
                }
                taken = sendUntilBackPressured(rig, id, taken);
                assertThat(rig.transport.pendingBytes(id)).isPositive().isLessThanOrEqualTo(OUTBOUND);
            }

            final int frames = taken;
            final CompletableFuture<Integer> reader = CompletableFuture.supplyAsync(() -> readInOrder(peer, frames));
            rig.pollUntil(reader::isDone);
            rig.pollUntil(() -> rig.transport.pendingBytes(id) == 0);

            assertThat(reader.get()).isEqualTo(frames);
            final var sent = rig.all(ChannelEvent.Sent.class);
            assertThat(sent).isNotEmpty();
            assertThat(sent.getLast().bytesBuffered()).isZero();
            assertThat(sent.stream().mapToLong(ChannelEvent.Sent::bytesWritten).sum()).isPositive();
            assertThat(rig.errors).isEmpty();
        }
    }

    /**
     * A reactor that polls reads may consult its selector only every few cycles: bytes held back by a full
     * socket must not wait for it. Only the poller runs here, never the selector, and it alone writes them
     * once the peer has read what the kernel held.
     */
    @Test
    void shouldWriteBytesHeldBackByAFullSocketFromThePollerWithoutTheSelector() throws Exception {
        try (TcpTestRig rig = new TcpTestRig(options(true)); Socket peer = new Socket()) {
            peer.setReceiveBufferSize(16 * 1024);
            peer.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();
            final int frames = sendUntilBackPressured(rig, id, 0);
            final long pending = rig.transport.pendingBytes(id);
            assertThat(pending).isPositive();
            final long sentEvents = rig.count(ChannelEvent.Sent.class);

            // what the kernel took: once the peer has read it, the socket has room again
            final long inKernel = (long)frames * (4 + PAYLOAD) - pending;
            new DataInputStream(peer.getInputStream()).readFully(new byte[(int)inKernel]);
            final TcpReadPoller poller = rig.transport.readPoller();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (rig.transport.pendingBytes(id) == pending && System.nanoTime() < deadline) {
                poller.doWork(System.nanoTime());
            }

            assertThat(rig.transport.pendingBytes(id)).as("written by the poller alone").isLessThan(pending);
            assertThat(rig.count(ChannelEvent.Sent.class)).as("progress reported").isGreaterThan(sentEvents);
            final CompletableFuture<Integer> reader = CompletableFuture.supplyAsync(() -> readRest(peer, frames, inKernel));
            rig.pollUntil(reader::isDone);
            assertThat(reader.get()).isEqualTo(frames);
            assertThat(rig.errors).isEmpty();
        }
    }

    /** A handler that pauses reading in {@code onSent} gets no frame from the rest of that poller's turn. */
    @Test
    void shouldReadNothingInThePollersTurnOnceOnSentPausedReading() throws Exception {
        final TcpTransport[] transport = new TcpTransport[1];
        final boolean[] armed = new boolean[1];
        final ChannelHandler pauser = new ChannelHandler() {
            @Override
            public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            }

            @Override
            public void onSent(final long channelId, final long bytesWritten, final long bytesBuffered) {
                if (armed[0]) {
                    transport[0].pauseReading(channelId);
                }
            }
        };
        try (TcpTestRig rig = new TcpTestRig(options(true), pauser); Socket peer = new Socket()) {
            transport[0] = rig.transport;
            peer.setReceiveBufferSize(16 * 1024);
            peer.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();
            final int frames = sendUntilBackPressured(rig, id, 0);
            final long pending = rig.transport.pendingBytes(id);
            final long sentEvents = rig.count(ChannelEvent.Sent.class);
            final DataOutputStream toRig = new DataOutputStream(peer.getOutputStream());
            toRig.writeInt(3);
            toRig.write(new byte[] {7, 8, 9});
            toRig.flush(); // waits in the rig's socket: nothing reads it before the poller's turn below
            armed[0] = true;

            new DataInputStream(peer.getInputStream()).readFully(new byte[(int)((long)frames * (4 + PAYLOAD) - pending)]);
            final TcpReadPoller poller = rig.transport.readPoller();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (rig.count(ChannelEvent.Sent.class) == sentEvents && System.nanoTime() < deadline) {
                poller.doWork(System.nanoTime());
            }

            assertThat(rig.count(ChannelEvent.Sent.class)).as("written by the poller").isGreaterThan(sentEvents);
            assertThat(rig.transport.isReadingPaused(id)).isTrue();
            assertThat(rig.all(ChannelEvent.Message.class)).as("nothing read once paused").isEmpty();
            armed[0] = false;
            rig.transport.resumeReading(id);
            rig.pollUntil(() -> rig.has(ChannelEvent.Message.class));
            assertThat(rig.all(ChannelEvent.Message.class)).hasSize(1);
            assertThat(rig.first(ChannelEvent.Message.class).bytes()).containsExactly(7, 8, 9);
            assertThat(rig.errors).isEmpty();
        }
    }

    /** Reads the frames past the first {@code skipped} bytes and checks they go on in order; returns the count. */
    private static int readRest(final Socket peer, final int frames, final long skipped) {
        try {
            final DataInputStream in = new DataInputStream(peer.getInputStream());
            final int frameLength = 4 + PAYLOAD;
            final int partial = (int)(skipped % frameLength); // of the frame the peer was inside
            in.readFully(new byte[partial == 0 ? 0 : frameLength - partial]);
            final int start = (int)(skipped / frameLength) + (partial == 0 ? 0 : 1);
            final byte[] payload = new byte[PAYLOAD];
            for (int expected = start; expected < frames; expected++) {
                assertThat(in.readInt()).isEqualTo(PAYLOAD);
                in.readFully(payload);
                assertThat(MemorySegment.ofArray(payload).get(ValueLayout.JAVA_INT_UNALIGNED, 0)).isEqualTo(expected);
            }
            return frames;
        } catch (final IOException ex) {
            throw new AssertionError(ex);
        }
    }

    private static int readInOrder(final Socket peer, final int frames) {
        try {
            final DataInputStream in = new DataInputStream(peer.getInputStream());
            final byte[] payload = new byte[PAYLOAD];
            for (int expected = 0; expected < frames; expected++) {
                assertThat(in.readInt()).isEqualTo(PAYLOAD);
                in.readFully(payload);
                final int sequence = MemorySegment.ofArray(payload).get(ValueLayout.JAVA_INT_UNALIGNED, 0);
                assertThat(sequence).isEqualTo(expected);
            }
            return frames;
        } catch (final IOException ex) {
            throw new AssertionError(ex);
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldAbortSafelyWhileAWriteIsPendingAndSayHowManyBytesWereDiscarded(final boolean readPolling) throws Exception {
        try (TcpTestRig rig = new TcpTestRig(options(readPolling)); Socket peer = new Socket()) {
            peer.setReceiveBufferSize(16 * 1024);
            peer.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();
            sendUntilBackPressured(rig, id, 0);
            assertThat(rig.transport.pendingBytes(id)).isPositive();

            final long pending = rig.transport.pendingBytes(id);

            rig.transport.abort(id);
            // the marker: a connection made after the abort is accepted (a select after it), then a timer due now
            final Socket next = new Socket();
            next.connect(rig.transport.localAddress(rig.first(ChannelEvent.Listening.class).serverId()));
            rig.pollUntil(() -> rig.count(ChannelEvent.Accepted.class) == 2);
            rig.awaitMarker();

            assertThat(rig.recorder.events().stream().filter(event -> event instanceof ChannelEvent.Sent sent && sent.channelId() == id
                || event instanceof ChannelEvent.Closed closed && closed.channelId() == id).toList()).as("onClosed, and nothing after it")
                .last().isInstanceOf(ChannelEvent.Closed.class);
            assertThat(rig.all(ChannelEvent.Closed.class)).containsExactly(
                new ChannelEvent.Closed(id, CloseReason.LOCAL, "aborted by the application; " + pending + " unsent bytes discarded"));
            assertThat(rig.transport.send(id, MemorySegment.ofArray(new byte[8]), 0, 8)).isEqualTo(SendResult.NOT_CONNECTED);
            assertThat(rig.transport.pendingBytes(id)).isEqualTo(SendResult.NOT_CONNECTED);
            assertThat(rig.errors).isEmpty();
            drainToEnd(peer);

            try (next) { // the reactor and the slot go on
                final long nextId = rig.all(ChannelEvent.Accepted.class).get(1).channelId();
                assertThat(rig.transport.send(nextId, MemorySegment.ofArray(new byte[] {1, 2}), 0, 2)).isNotNegative();
                rig.reactor.doWork();
                assertThat(new DataInputStream(next.getInputStream()).readInt()).isEqualTo(2);
            }
        }
    }

    private static void drainToEnd(final Socket peer) throws IOException {
        final byte[] sink = new byte[8192];
        try {
            int total = 0;
            while (peer.getInputStream().read(sink) >= 0) {
                total += sink.length;
                if (total > 100 * OUTBOUND) {
                    throw new AssertionError("more bytes than were ever buffered");
                }
            }
        } catch (final EOFException | java.net.SocketException ex) {
            // a reset is an acceptable end: the pending bytes were discarded
        }
    }

    /**
     * A refusal while earlier bytes only wait for the end-of-cycle write: that write (or the application's own
     * flush) empties the buffer without OP_WRITE, and the onSent that {@link SendResult#BACK_PRESSURED} promises
     * must still come, at the end of the cycle, never from inside the flush call.
     */
    @ParameterizedTest(name = "readPolling={0}, flushed by the application={1}")
    @CsvSource({"false,false", "true,false", "false,true", "true,true"})
    void shouldTellARefusedSenderWhenAWriteOutsideOpWriteEmptiesTheBuffer(final boolean readPolling,
                                                                          final boolean applicationFlush) throws Exception {
        // the outbound buffer holds one largest frame: a small frame waiting for its write leaves no room for one
        final TcpOptions options = new TcpOptions().readPolling(readPolling).framing(Framing.parse("length:4be"))
            .maxFrameLength(64 * 1024).outboundBufferSize(64);
        try (TcpTestRig rig = new TcpTestRig(options); Socket peer = new Socket()) {
            peer.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();
            final MemorySegment big = Arena.ofAuto().allocate(64 * 1024);

            assertThat(rig.transport.send(id, TcpTestRig.text("small"), 0, 5)).isEqualTo(9);
            assertThat(rig.transport.send(id, big, 0, 64 * 1024)).isEqualTo(SendResult.BACK_PRESSURED);
            if (applicationFlush) {
                assertThat(rig.transport.flush(id)).isZero();
                assertThat(rig.all(ChannelEvent.Sent.class)).as("not from inside the flush call").isEmpty();
            }
            rig.pollUntil(() -> rig.has(ChannelEvent.Sent.class));

            assertThat(rig.all(ChannelEvent.Sent.class)).singleElement()
                .satisfies(sent -> assertThat(sent.bytesBuffered()).isZero())
                .satisfies(sent -> assertThat(sent.bytesWritten()).isEqualTo(9));
            assertThat(rig.transport.send(id, big, 0, 64 * 1024)).as("the retry the event asked for").isNotNegative();
            final CompletableFuture<Integer> read = CompletableFuture.supplyAsync(() -> {
                try {
                    final DataInputStream in = new DataInputStream(peer.getInputStream());
                    assertThat(in.readInt()).isEqualTo(5);
                    in.readFully(new byte[5]);
                    final int length = in.readInt();
                    in.readFully(new byte[length]);
                    return length;
                } catch (final IOException ex) {
                    throw new AssertionError(ex);
                }
            });
            rig.pollUntil(read::isDone); // the peer read the whole retried frame: an event, not a wait for the writes
            assertThat(read.get()).isEqualTo(64 * 1024);
            assertThat(rig.errors).isEmpty();
        }
    }
}
