package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.SendResult;

import java.io.DataInputStream;
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
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sends are batched: what a duty cycle (or the application between two cycles) sends on a channel is
 * written in one write, a lone message is written in the cycle it was sent in, and a sender held up by a
 * full socket goes on batching, in order, once the socket drains.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpSendBatchingTest {
    private static final int PAYLOAD = 12;

    private static TcpOptions options(final boolean readPolling) {
        return new TcpOptions().readPolling(readPolling).framing(Framing.parse("length:4be"));
    }

    private static MemorySegment numbered(final int sequence) {
        final MemorySegment payload = MemorySegment.ofArray(new byte[PAYLOAD]);
        payload.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 0, sequence);
        return payload;
    }

    /** Reads {@code count} frames of {@link #PAYLOAD} bytes numbered from {@code first}; a blocking peer. */
    private static void readNumbered(final DataInputStream in, final int first, final int count) throws IOException {
        for (int i = first; i < first + count; i++) {
            assertThat(in.readInt()).as("length of frame %d", i).isEqualTo(PAYLOAD);
            assertThat(in.readInt()).as("sequence").isEqualTo(i);
            in.readFully(new byte[PAYLOAD - 4]);
        }
    }

    private static long accept(final TcpTestRig rig, final Socket peer) throws IOException {
        return accept(rig, peer, rig.listen());
    }

    private static long accept(final TcpTestRig rig, final Socket peer, final java.net.InetSocketAddress address)
        throws IOException {
        final long accepted = rig.count(ChannelEvent.Accepted.class);
        peer.setSoTimeout(10_000);
        peer.connect(address);
        rig.pollUntil(() -> rig.count(ChannelEvent.Accepted.class) == accepted + 1);
        return rig.all(ChannelEvent.Accepted.class).getLast().channelId();
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldWriteEverythingSentBetweenTwoCyclesInOneWrite(final boolean readPolling) throws Exception {
        try (TcpTestRig rig = new TcpTestRig(options(readPolling)); Socket peer = new Socket()) {
            final long id = accept(rig, peer);
            final long before = rig.transport.socketWrites(id);

            for (int i = 0; i < 100; i++) {
                assertThat(rig.transport.send(id, numbered(i), 0, PAYLOAD)).isEqualTo((i + 1) * (4L + PAYLOAD));
            }
            for (int i = 100; i < 150; i++) {
                final long offset = rig.transport.tryClaim(id, PAYLOAD);
                MemorySegment.copy(numbered(i), 0, rig.transport.claimBuffer(), offset, PAYLOAD);
                assertThat(rig.transport.commit()).isEqualTo((i + 1) * (4L + PAYLOAD));
            }
            assertThat(rig.transport.socketWrites(id)).as("nothing written before the cycle").isEqualTo(before);
            rig.reactor.doWork();

            assertThat(rig.transport.socketWrites(id) - before).as("writes for 150 frames").isEqualTo(1);
            assertThat(rig.transport.pendingBytes(id)).isZero();
            readNumbered(new DataInputStream(peer.getInputStream()), 0, 150);
            assertThat(rig.errors).isEmpty();
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldWriteWhatHandlersSendOnAnotherChannelInOneCycleInOneWrite(final boolean readPolling) throws Exception {
        final TcpTransport[] transport = new TcpTransport[1];
        final long[] target = {-1};
        final ChannelHandler fanOut = (channelId, buffer, offset, length) -> {
            for (int i = 0; i < 100; i++) {
                transport[0].send(target[0], numbered(i), 0, PAYLOAD);
            }
        };
        try (TcpTestRig rig = new TcpTestRig(options(readPolling), fanOut); Socket source = new Socket();
             Socket sink = new Socket()) {
            transport[0] = rig.transport;
            final java.net.InetSocketAddress address = rig.listen();
            accept(rig, source, address);
            target[0] = accept(rig, sink, address);
            final long before = rig.transport.socketWrites(target[0]);

            source.getOutputStream().write(new byte[] {0, 0, 0, 1, 'x'});
            rig.pollUntil(() -> rig.has(ChannelEvent.Message.class));

            assertThat(rig.transport.socketWrites(target[0]) - before).as("writes for 100 frames").isEqualTo(1);
            assertThat(rig.transport.pendingBytes(target[0])).as("written in the cycle that read the message").isZero();
            readNumbered(new DataInputStream(sink.getInputStream()), 0, 100);
            assertThat(rig.errors).isEmpty();
        }
    }

    /**
     * What was sent between two cycles is written at the start of the next, ahead of the cycle's reads: a request
     * is not held behind a read that cannot yet hold its answer. Seen from the handler of the message that read
     * delivers: nothing of the earlier send is still waiting.
     */
    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldWriteWhatWasSentBetweenCyclesAheadOfTheNextCyclesReads(final boolean readPolling) throws Exception {
        final TcpTransport[] transport = new TcpTransport[1];
        final long[] pendingAtTheRead = {-1};
        final ChannelHandler pendingRecorder = (channelId, buffer, offset, length) ->
            pendingAtTheRead[0] = transport[0].pendingBytes(channelId);
        try (TcpTestRig rig = new TcpTestRig(options(readPolling), pendingRecorder); Socket peer = new Socket()) {
            transport[0] = rig.transport;
            final long id = accept(rig, peer);
            peer.getOutputStream().write(new byte[] {0, 0, 0, 1, 'x'}); // on loopback, readable once write returns

            assertThat(rig.transport.send(id, numbered(7), 0, PAYLOAD)).isEqualTo(4L + PAYLOAD);
            rig.reactor.doWork();

            assertThat(rig.count(ChannelEvent.Message.class)).as("the peer's frame, read in this cycle").isEqualTo(1);
            assertThat(pendingAtTheRead[0]).as("bytes of the earlier send still waiting when the read delivered").isZero();
            readNumbered(new DataInputStream(peer.getInputStream()), 7, 1);
            assertThat(rig.errors).isEmpty();
        }
    }

    @Test
    void shouldWriteALoneSendInTheNextCycleAndFlushAtOnceWhenAsked() throws Exception {
        try (TcpTestRig rig = new TcpTestRig(options(false)); Socket peer = new Socket()) {
            final long id = accept(rig, peer);
            final DataInputStream in = new DataInputStream(peer.getInputStream());

            assertThat(rig.transport.send(id, numbered(0), 0, PAYLOAD)).isEqualTo(4 + PAYLOAD);
            rig.reactor.doWork();
            assertThat(rig.transport.pendingBytes(id)).as("written by the one cycle after the send").isZero();
            readNumbered(in, 0, 1);

            assertThat(rig.transport.send(id, numbered(1), 0, PAYLOAD)).isEqualTo(4 + PAYLOAD);
            assertThat(rig.transport.flush(id)).as("flush writes without a cycle").isZero();
            readNumbered(in, 1, 1);
            assertThat(rig.transport.flush(id)).as("nothing to write").isZero();
            assertThat(rig.transport.flush(id + 1)).isEqualTo(SendResult.NOT_CONNECTED);
            assertThat(rig.errors).isEmpty();
        }
    }

    @ParameterizedTest(name = "readPolling={0}")
    @ValueSource(booleans = {false, true})
    void shouldResumeBatchingInOrderAfterASocketThatWasFull(final boolean readPolling) throws Exception {
        final TcpOptions options = options(readPolling).outboundBufferSize(64 * 1024).socketSendBufferSize(16 * 1024);
        try (TcpTestRig rig = new TcpTestRig(options); Socket peer = new Socket()) {
            peer.setReceiveBufferSize(16 * 1024);
            final long id = accept(rig, peer);
            int sequence = 0;
            int refusals = 0;
            while (refusals == 0) { // the peer does not read yet: fill its socket and ours
                if (rig.transport.send(id, numbered(sequence), 0, PAYLOAD) == SendResult.BACK_PRESSURED) {
                    refusals++;
                } else {
                    sequence++;
                }
                assertThat(sequence).as("never back-pressured").isLessThan(1_000_000);
            }
            final int total = sequence + 200_000;
            final CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
                try {
                    readNumbered(new DataInputStream(new java.io.BufferedInputStream(peer.getInputStream())), 0, total);
                } catch (final IOException ex) {
                    throw new java.io.UncheckedIOException(ex);
                }
            });
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (sequence < total) { // the application drives the reactor only when refused
                if (rig.transport.send(id, numbered(sequence), 0, PAYLOAD) == SendResult.BACK_PRESSURED) {
                    rig.reactor.doWork();
                    assertThat(System.nanoTime()).isLessThan(deadline);
                } else {
                    sequence++;
                }
            }
            rig.pollUntil(reader::isDone);
            reader.get();

            final long before = rig.transport.socketWrites(id);
            for (int i = 0; i < 10; i++) {
                rig.transport.send(id, numbered(total + i), 0, PAYLOAD);
            }
            rig.reactor.doWork();
            assertThat(rig.transport.socketWrites(id) - before).as("batching again once drained").isEqualTo(1);
            readNumbered(new DataInputStream(peer.getInputStream()), total, 10);
            assertThat(rig.errors).isEmpty();
        }
    }
}
