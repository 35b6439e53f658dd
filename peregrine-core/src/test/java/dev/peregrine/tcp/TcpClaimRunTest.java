package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.SendResult;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A claimed run of frames ({@link TcpTransport#tryClaim(long, int, int)}): on the wire exactly what the same
 * payloads sent one by one would be, in every framing; refused, aborted and ended as a claim of one frame is.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TcpClaimRunTest {
    private static final int LENGTH = 6;
    private static final int COUNT = 50;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"raw", "fixed:6", "length:1be", "length:2le", "length:4be+self", "length:8le", "line",
        "crlf", "delimiter:7c7c"})
    void shouldPutOnTheWireWhatTheSamePayloadsSentOneByOneWould(final String spec) throws Exception {
        final Framing framing = Framing.parse(spec);
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().framing(framing));
             Socket byRun = new Socket(); Socket bySends = new Socket(); Arena arena = Arena.ofConfined()) {
            final InetSocketAddress address = rig.listen();
            byRun.connect(address);
            rig.pollUntil(() -> rig.count(ChannelEvent.Accepted.class) == 1);
            bySends.connect(address);
            rig.pollUntil(() -> rig.count(ChannelEvent.Accepted.class) == 2);
            final long run = rig.all(ChannelEvent.Accepted.class).get(0).channelId();
            final long sends = rig.all(ChannelEvent.Accepted.class).get(1).channelId();
            final MemorySegment payload = arena.allocate(LENGTH);

            final long first = rig.transport.tryClaim(run, LENGTH, COUNT);
            assertThat(first).isNotNegative();
            final int stride = rig.transport.claimStride();
            assertThat(stride).isEqualTo(LENGTH + framing.overhead());
            for (int i = 0; i < COUNT; i++) {
                fill(rig.transport.claimBuffer(), first + (long)i * stride, i);
            }
            assertThat(rig.transport.commit()).as("the whole run appended").isEqualTo((long)COUNT * stride);
            rig.reactor.doWork();
            assertThat(rig.transport.counters().messagesOut.get()).as("frames counted as written").isEqualTo(COUNT);
            for (int i = 0; i < COUNT; i++) {
                fill(payload, 0, i);
                assertThat(rig.transport.send(sends, payload, 0, LENGTH)).isNotNegative();
            }
            rig.reactor.doWork();

            final byte[] expected = bySends.getInputStream().readNBytes(COUNT * stride);
            assertThat(byRun.getInputStream().readNBytes(COUNT * stride)).as(spec).isEqualTo(expected);
            assertThat(rig.errors).isEmpty();
        }
    }

    /** Payload i: six letters from 'a' + i, none of them a delimiter of any framing above. */
    private static void fill(final MemorySegment buffer, final long at, final int i) {
        for (int b = 0; b < LENGTH; b++) {
            buffer.set(ValueLayout.JAVA_BYTE, at + b, (byte)('A' + (i + b) % 26));
        }
    }

    @Test
    void shouldRefuseARunAsAClaimIsRefusedAndARunLargerThanTheWholeBuffer() {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().framing(Framing.fixed(4)).outboundBufferSize(4096))) {
            final long client = rig.transport.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Connected.class));

            assertThatThrownBy(() -> rig.transport.tryClaim(client, 4, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("count=0");
            assertThatThrownBy(() -> rig.transport.tryClaim(client, 3, 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("length=3").hasMessageContaining("fixed:4");
            assertThat(rig.transport.tryClaim(client, 5, 2)).isEqualTo(SendResult.MESSAGE_TOO_LARGE);
            assertThat(rig.transport.tryClaim(client, 4, 1025)).as("4100 bytes, more than the whole buffer")
                .isEqualTo(SendResult.MESSAGE_TOO_LARGE);
            assertThat(rig.transport.tryClaim(client, 4, Integer.MAX_VALUE)).as("no overflow of the run's length")
                .isEqualTo(SendResult.MESSAGE_TOO_LARGE);
            assertThatThrownBy(() -> rig.transport.commit()).as("nothing was claimed")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("no claim is open");

            assertThat(rig.transport.tryClaim(client, 4, 1024)).as("the whole buffer").isNotNegative();
            assertThatThrownBy(() -> rig.transport.tryClaim(client, 4, 2)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is open");
            assertThatThrownBy(() -> rig.transport.tryClaim(client, 4)).isInstanceOf(IllegalStateException.class);
            rig.transport.abortClaim();
            rig.transport.close(client);
            rig.pollUntil(() -> rig.count(ChannelEvent.Closed.class) == 2);
            assertThat(rig.transport.tryClaim(client, 4, 2)).isEqualTo(SendResult.NOT_CONNECTED);
        }
    }

    @Test
    void shouldSendNothingOfAnAbortedRunAndRefuseARunThatDoesNotFitNow() throws Exception {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().framing(Framing.parse("length:1be")).outboundBufferSize(4096));
             Socket peer = new Socket()) {
            peer.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();

            assertThat(rig.transport.tryClaim(id, 1, 100)).isNotNegative();
            rig.transport.abortClaim();
            assertThat(rig.transport.pendingBytes(id)).as("an aborted run").isZero();
            final long one = rig.transport.tryClaim(id, 1);
            rig.transport.claimBuffer().set(ValueLayout.JAVA_BYTE, one, (byte)'x');
            assertThat(rig.transport.commit()).isEqualTo(2);
            assertThatThrownBy(() -> rig.transport.claimStride()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no claim is open");
            rig.reactor.doWork();
            assertThat(peer.getInputStream().readNBytes(2)).as("the frame after the abort, alone").containsExactly(1, 'x');
            assertThat(peer.getInputStream().available()).isZero();
        }
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().framing(Framing.parse("length:1be")).outboundBufferSize(4096));
             Socket peer = new Socket()) {
            peer.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
            final long id = rig.first(ChannelEvent.Accepted.class).channelId();
            final long one = rig.transport.tryClaim(id, 1);
            rig.transport.claimBuffer().set(ValueLayout.JAVA_BYTE, one, (byte)'x');
            rig.transport.commit();

            assertThat(rig.transport.tryClaim(id, 1, 2048)).as("the whole buffer, behind 2 bytes pending: not now")
                .isEqualTo(SendResult.BACK_PRESSURED);
            assertThatThrownBy(() -> rig.transport.commit()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no claim is open");
            rig.reactor.doWork();
            assertThat(peer.getInputStream().readNBytes(2)).as("only the frame committed").containsExactly(1, 'x');
            final long run = rig.transport.tryClaim(id, 1, 2048);
            assertThat(run).as("once written, it fits").isNotNegative();
            rig.transport.abortClaim();
        }
    }

    @Test
    void shouldAbortARunLeftOpenPastItsDutyCycleAndSayItWasARun() {
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions().framing(Framing.parse("length:2be")))) {
            final long client = rig.transport.connect(rig.listen());
            rig.pollUntil(() -> rig.has(ChannelEvent.Connected.class));

            assertThat(rig.transport.tryClaim(client, 8, 3)).isNotNegative();
            rig.reactor.doWork();

            assertThat(rig.errors).singleElement().asString().contains("a run of 3 frames (30 bytes)").contains("was aborted");
            assertThatThrownBy(() -> rig.transport.commit()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("a run of 3 frames");
            assertThat(rig.transport.pendingBytes(client)).isZero();
        }
    }
}
