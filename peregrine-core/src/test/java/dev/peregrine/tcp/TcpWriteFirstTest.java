package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.SendResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.peregrine.tcp.TcpTestRig.text;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 32: {@link TcpTransport#writeFirst} orders the end-of-cycle write, and {@link TcpWriteListener} is told of
 * each write as it happens, with the channel's stream position.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TcpWriteFirstTest {
    /** One write as the listener saw it. */
    private record Write(long channelId, long bytesWritten, int bytesPending) {
    }

    private static long[] connect(final TcpTestRig rig, final InetSocketAddress address, final int n) {
        final long[] ids = new long[n];
        for (int i = 0; i < n; i++) {
            ids[i] = rig.transport.connect(address);
        }
        rig.pollUntil(() -> rig.count(ChannelEvent.Connected.class) == n && rig.count(ChannelEvent.Accepted.class) == n);
        return ids;
    }

    @Test
    void shouldWriteTheChannelsMovedFirstBeforeTheOthersInOneWriteEachAndTellTheListenerOfEach() {
        final List<Write> writes = new ArrayList<>();
        final TcpOptions options = new TcpOptions().framing(Framing.parse("length:2be"))
            .writeListener((id, written, pending) -> writes.add(new Write(id, written, pending)));
        try (TcpTestRig rig = new TcpTestRig(options)) {
            final long[] ids = connect(rig, rig.listen(), 3);
            final long a = ids[0];
            final long b = ids[1];
            final long c = ids[2];
            writes.clear();
            for (int round = 0; round < 2; round++) {
                for (final long id : ids) {
                    assertThat(rig.transport.send(id, text("ping"), 0, 4)).isNotNegative(); // listed a, b, c
                }
            }
            assertThat(rig.transport.writeFirst(c)).isZero();
            assertThat(rig.transport.writeFirst(b)).isZero();
            assertThat(rig.transport.writeFirst(c)).as("moved already: stays first").isZero();
            assertThat(writes).as("nothing written before the cycle").isEmpty();
            rig.reactor.doWork();
            // moved first in the order moved, then the rest; one write each for both frames
            assertThat(writes).containsExactly(new Write(c, 12, 0), new Write(b, 12, 0), new Write(a, 12, 0));
            rig.pollUntil(() -> rig.count(ChannelEvent.Message.class) == 6);

            writes.clear();
            assertThat(rig.transport.send(a, text("ping"), 0, 4)).isNotNegative();
            assertThat(rig.transport.send(b, text("ping"), 0, 4)).isNotNegative();
            rig.reactor.doWork();
            assertThat(writes).as("the next cycle's order is the listing's again")
                .containsExactly(new Write(a, 18, 0), new Write(b, 18, 0));
            assertThat(rig.transport.writeFirst(a)).as("nothing waits: nothing to do").isZero();
            assertThat(rig.transport.writeFirst(a + 1_000_000)).isEqualTo(SendResult.NOT_CONNECTED);
        }
    }

    @Test
    void shouldCloseOnlyTheChannelWhoseWriteListenerThrewAndAnswerClosedToTheFlush() {
        final long[] failOn = {-1};
        final TcpOptions options = new TcpOptions().framing(Framing.parse("length:2be"))
            .writeListener((id, written, pending) -> {
                if (id == failOn[0]) {
                    throw new IllegalStateException("listener fault");
                }
            });
        try (TcpTestRig rig = new TcpTestRig(options)) {
            final long[] ids = connect(rig, rig.listen(), 2);
            failOn[0] = ids[0];
            assertThat(rig.transport.send(ids[0], text("ping"), 0, 4)).isNotNegative();
            assertThat(rig.transport.send(ids[1], text("pong"), 0, 4)).isNotNegative();
            assertThat(rig.transport.flush(ids[0])).as("a write whose listener threw").isEqualTo(SendResult.CLOSED);
            final ChannelEvent.Closed closed = rig.first(ChannelEvent.Closed.class);
            assertThat(closed.channelId()).isEqualTo(ids[0]);
            assertThat(closed.reason()).isEqualTo(CloseReason.ERROR);
            assertThat(closed.detail()).contains("listener fault");
            assertThat(rig.errors).hasSize(1);
            rig.pollUntil(() -> rig.all(ChannelEvent.Message.class).stream()
                .anyMatch(m -> new String(m.bytes(), java.nio.charset.StandardCharsets.US_ASCII).equals("pong")));
            assertThat(rig.transport.isConnected(ids[1])).isTrue();
        }
    }
}
