package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * "A close that discards unsent bytes resets the connection", seen from the peer for every path that discards:
 * an {@code abort(id)} with bytes pending and without, a handler that throws, and a malformed frame from the
 * peer. The peer's read must fail with {@code Connection reset}; a clean end of stream (a FIN) fails the test,
 * since a peer would take the cut stream for a whole one. ({@link TcpGracefulCloseTest} covers the linger
 * expiry and the transport's close.) Small socket buffers and a peer that does not read keep the bytes pending.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpResetAtPeerTest {
    private static final int SOCKET_BUFFER = 16 * 1024;
    private static final int FRAMES = 300;
    private static final int PAYLOAD = 1000;
    private static final int MAX_FRAME = 4096;

    /** The close that discards. */
    enum Discard {
        ABORT_WITH_PENDING_BYTES, ABORT_WITH_NOTHING_PENDING, HANDLER_FAILURE, MALFORMED_FRAME
    }

    private static void sendNumbered(final TcpTransport transport, final long id) {
        final MemorySegment payload = Arena.ofAuto().allocate(PAYLOAD);
        for (int sequence = 0; sequence < FRAMES; sequence++) {
            payload.set(ValueLayout.JAVA_INT_UNALIGNED, 0, sequence);
            assertThat(transport.send(id, payload, 0, PAYLOAD)).isNotNegative();
        }
    }

    @ParameterizedTest
    @EnumSource(Discard.class)
    void shouldResetThePeersStreamWhenACloseDiscards(final Discard discard) throws Exception {
        final TcpTransport[] transport = new TcpTransport[1];
        final ChannelHandler failing = (channelId, buffer, offset, length) -> {
            sendNumbered(transport[0], channelId); // the peer does not read: most of it stays pending
            throw new IllegalStateException("the handler failed on purpose");
        };
        final TcpOptions options = new TcpOptions().outboundBufferSize(1024 * 1024).socketSendBufferSize(SOCKET_BUFFER)
            .maxFrameLength(MAX_FRAME);
        try (TcpTestRig rig = new TcpTestRig(options, discard == Discard.HANDLER_FAILURE ? failing : null);
            Socket peer = new Socket()) {
            transport[0] = rig.transport;
            peer.setReceiveBufferSize(SOCKET_BUFFER);
            peer.setSoTimeout(20_000);
            peer.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();
            final OutputStream out = peer.getOutputStream();

            switch (discard) {
                case ABORT_WITH_PENDING_BYTES -> {
                    sendNumbered(rig.transport, id);
                    rig.reactor.doWork();
                    rig.transport.abort(id);
                }
                case ABORT_WITH_NOTHING_PENDING -> rig.transport.abort(id);
                case HANDLER_FAILURE -> out.write(new byte[] {0, 0, 0, 1, 'x'});
                case MALFORMED_FRAME -> {
                    sendNumbered(rig.transport, id);
                    rig.reactor.doWork();
                    out.write(new byte[] {0x7F, 0, 0, 0}); // a length far over maxFrameLength
                }
                default -> throw new AssertionError(discard);
            }
            out.flush();
            rig.pollUntil(() -> rig.has(ChannelEvent.Closed.class));
            final ChannelEvent.Closed closed = rig.first(ChannelEvent.Closed.class);
            final long expectedDiscarded;
            switch (discard) {
                case ABORT_WITH_NOTHING_PENDING -> {
                    assertThat(closed).isEqualTo(new ChannelEvent.Closed(id, CloseReason.LOCAL, "aborted by the application"));
                    expectedDiscarded = 0;
                }
                case HANDLER_FAILURE, MALFORMED_FRAME -> {
                    assertThat(closed.reason()).isEqualTo(CloseReason.ERROR);
                    assertThat(closed.detail()).matches(".*; [1-9][0-9]* unsent bytes discarded");
                    expectedDiscarded = Long.parseLong(closed.detail().replaceAll(".*; ([0-9]+) unsent bytes discarded", "$1"));
                }
                default -> {
                    assertThat(closed.reason()).isEqualTo(CloseReason.LOCAL);
                    assertThat(closed.detail()).matches("aborted by the application; [1-9][0-9]* unsent bytes discarded");
                    expectedDiscarded = Long.parseLong(closed.detail().replaceAll(".*; ([0-9]+) unsent bytes discarded", "$1"));
                }
            }
            // the socket is released by the reactor's next select, once its key is gone
            final CompletableFuture<PeerStream.Received> reader = CompletableFuture.supplyAsync(() -> PeerStream.readAll(peer));
            rig.pollUntil(reader::isDone);

            assertThat(reader.get().end()).as("how the peer's stream ended after %s", closed.detail()).isEqualTo("reset");
            assertThat(reader.get().bytes()).isLessThanOrEqualTo((long)FRAMES * (4 + PAYLOAD) - expectedDiscarded);
            assertThat(rig.count(ChannelEvent.Closed.class)).isEqualTo(1);
        }
    }
}
