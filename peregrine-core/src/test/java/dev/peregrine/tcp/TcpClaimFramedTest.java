package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.SendResult;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A claim of frames the caller writes whole ({@link TcpTransport#tryClaimFramed}): its bytes go on the wire as
 * written, the frames are counted, and it is refused like any claim.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TcpClaimFramedTest {
    @Test
    void shouldPutTheCallersFramesOnTheWireAsWrittenAndCountThem() throws Exception {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().framing(Framing.parse("length:2be")));
             Socket peer = new Socket()) {
            final InetSocketAddress address = rig.listen();
            peer.connect(address);
            rig.pollUntil(() -> rig.count(ChannelEvent.Accepted.class) == 1);
            final long channel = rig.all(ChannelEvent.Accepted.class).get(0).channelId();
            // three frames of 1, 3 and 0 payload bytes, written by hand (golden bytes, not the transport's encoder)
            final byte[] frames = {0, 1, 'a', 0, 3, 'b', 'c', 'd', 0, 0};

            final long at = rig.transport.tryClaimFramed(channel, frames.length, 3);
            assertThat(at).isNotNegative();
            final MemorySegment out = rig.transport.claimBuffer();
            for (int i = 0; i < frames.length; i++) {
                out.set(ValueLayout.JAVA_BYTE, at + i, frames[i]);
            }
            assertThat(rig.transport.commit()).isEqualTo(frames.length);
            rig.reactor.doWork();

            assertThat(peer.getInputStream().readNBytes(frames.length)).isEqualTo(frames);
            assertThat(rig.transport.counters().messagesOut.get()).as("frames counted as written").isEqualTo(3);
            assertThat(rig.errors).isEmpty();
        }
    }

    @Test
    void shouldRefuseAFramedClaimLargerThanTheBufferOrEmptyOrWhileAClaimIsOpen() {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().framing(Framing.parse("length:2be")).outboundBufferSize(4096))) {
            final long client = rig.transport.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Connected.class));

            assertThat(rig.transport.tryClaimFramed(client, 1 << 20, 1)).as("more than the whole buffer").isEqualTo(SendResult.MESSAGE_TOO_LARGE);
            assertThatThrownBy(() -> rig.transport.tryClaimFramed(client, 0, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bytes=0");
            assertThatThrownBy(() -> rig.transport.tryClaimFramed(client, 2, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("frames=0");
            assertThat(rig.transport.tryClaimFramed(client, 4096, 1)).isNotNegative();
            assertThatThrownBy(() -> rig.transport.tryClaimFramed(client, 2, 1))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("is open");
            rig.transport.abortClaim();
        }
    }
}
