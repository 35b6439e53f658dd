package dev.peregrine.handoff;

import dev.peregrine.channel.ChannelCommand;
import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.ScriptedTransport;
import dev.peregrine.channel.SendResult;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application's transport of a separated stack refuses bad input with a return code, counted, before anything
 * reaches the command ring (so never a socket), answers BACK_PRESSURED for a full ring or a back-pressured
 * transport, keeps closes a full ring refused, and contains a handler that throws. One thread plays both sides: the
 * reactor is driven by hand ({@link ReactorCommandRing#doWork}), events are fed to the stack as the transport would.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SeparatedTransportTest {
    private static final InetSocketAddress PEER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 5);

    private final List<Throwable> errors = new ArrayList<>();
    private final List<String> seen = new ArrayList<>();
    private Reactor reactor;
    private ReactorCommandRing ring;
    private ScriptedTransport scripted;
    private SeparatedStack stack;
    private SeparatedTransport transport;
    private SeparatedAgent agent;
    private final MemorySegment message = MemorySegment.ofArray(new byte[1 << 14]);

    @BeforeEach
    void setUp() {
        reactor = new Reactor(new ReactorOptions().errorHandler(errors::add));
        ring = new ReactorCommandRing(reactor, new CommandRingOptions().capacity(1 << 10));
        scripted = new ScriptedTransport();
        stack = new SeparatedStack(reactor, ring, 1 << 12);
        transport = stack.attach(scripted);
        agent = new SeparatedAgent(stack, new ChannelHandler() {
            @Override
            public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
                if (length == 1 && buffer.get(java.lang.foreign.ValueLayout.JAVA_BYTE, offset) == 'X') {
                    throw new IllegalStateException("the application fails on X");
                }
                seen.add("message " + channelId + " " + length);
            }

            @Override
            public void onClosed(final long channelId, final CloseReason reason, final String detail) {
                seen.add("closed " + channelId + " " + reason);
            }
        }, errors::add, 16);
        stack.onAccepted(1, 10, PEER);
        stack.onAccepted(1, 11, PEER);
        agent.doWork();
    }

    @AfterEach
    void tearDown() {
        stack.close();
        ring.close();
        reactor.close();
    }

    private List<ChannelCommand> drained() {
        ring.doWork(reactor.nowNs());
        return scripted.commands();
    }

    @Test
    void shouldRefuseAnUnknownChannelWithNotConnectedAndSendNothing() {
        assertThat(transport.send(99, message, 0, 8)).isEqualTo(SendResult.NOT_CONNECTED);
        assertThat(transport.send(1, message, 0, 8)).as("a server id is no channel").isEqualTo(SendResult.NOT_CONNECTED);
        assertThat(transport.refused()).isEqualTo(2);
        assertThat(drained()).isEmpty();
        assertThat(ring.delivered() + ring.discarded()).isZero();
    }

    @Test
    void shouldRefuseAMessageLongerThanTheRingsWithMessageTooLargeAndSendNothing() {
        final int longest = transport.maxMessageLength();
        assertThat(longest).isEqualTo(Math.min(ring.maxMessageLength(), WorkerRingDescriptor.maxMessageLength(1 << 12)));
        assertThat(transport.send(10, message, 0, longest + 1)).isEqualTo(SendResult.MESSAGE_TOO_LARGE);
        assertThat(transport.refused()).isEqualTo(1);
        assertThat(drained()).isEmpty();
        assertThat(transport.send(10, message, 0, longest)).isZero();
        assertThat(drained()).hasSize(1);
    }

    @Test
    void shouldRefuseASendAfterCloseWithClosedAndAfterTheCloseEventWithNotConnected() {
        transport.close(10);
        assertThat(transport.send(10, message, 0, 8)).isEqualTo(SendResult.CLOSED);
        assertThat(transport.send(11, message, 0, 8)).as("the other channel goes on").isZero();
        assertThat(drained()).containsExactly(new ChannelCommand.Close(10),
            new ChannelCommand.Send(11, new byte[8], 0));
        stack.onClosed(10, CloseReason.LOCAL, "closed");
        agent.doWork();
        assertThat(transport.send(10, message, 0, 8)).isEqualTo(SendResult.NOT_CONNECTED);
        transport.close(10); // unknown now: ignored, counted
        assertThat(transport.refused()).isEqualTo(3);
        assertThat(drained()).hasSize(2);
        transport.close();
        assertThat(transport.send(11, message, 0, 8)).as("after closing the transport").isEqualTo(SendResult.CLOSED);
    }

    @Test
    void shouldAnswerBackPressuredForAFullRingAndForABackPressuredTransportWithNothingLost() {
        long taken = 0;
        while (transport.send(10, message, 0, 100) == 0) {
            taken++;
        }
        assertThat(taken).isPositive();
        assertThat(transport.send(10, message, 0, 100)).isEqualTo(SendResult.BACK_PRESSURED);
        assertThat(drained()).hasSize((int)taken);

        scripted.sendResult(SendResult.BACK_PRESSURED);
        assertThat(transport.send(10, message, 0, 100)).isZero();
        ring.doWork(reactor.nowNs()); // the transport refuses: the flag is set, the command stays
        assertThat(ring.isBackPressured(0)).isTrue();
        assertThat(transport.send(11, message, 0, 100)).isEqualTo(SendResult.BACK_PRESSURED);
        scripted.sendResult(0);
        ring.doWork(reactor.nowNs());
        assertThat(transport.send(11, message, 0, 100)).isZero();
        ring.doWork(reactor.nowNs());
        assertThat(ring.discarded()).isZero();
        assertThat(ring.delivered()).isEqualTo(taken + 2);
    }

    @Test
    void shouldKeepACloseThatAFullRingRefusedAndIssueItOnALaterCycle() {
        while (transport.send(11, message, 0, 100) == 0) {
            // fill the ring
        }
        transport.close(10);
        assertThat(transport.pending()).isEqualTo(1);
        ring.doWork(reactor.nowNs());
        agent.doWork();
        assertThat(transport.pending()).isZero();
        final List<ChannelCommand> commands = drained();
        assertThat(commands.get(commands.size() - 1)).isEqualTo(new ChannelCommand.Close(10));
    }

    @Test
    void shouldContainAHandlerThatThrowsAndCloseOnlyItsChannel() {
        message.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte)'X');
        stack.onMessage(10, message, 0, 1);
        stack.onMessage(11, message, 1, 3);
        assertThat(agent.doWork()).isEqualTo(2);
        assertThat(agent.failures()).isEqualTo(1);
        assertThat(seen).containsExactly("message 11 3");
        assertThat(errors).hasSize(1);
        assertThat(drained()).containsExactly(new ChannelCommand.Close(10));
    }

    /** A scripted transport that can pause a channel's reading, recording each pause and resume. */
    private static final class PausableTransport implements dev.peregrine.channel.Transport, ReadPausable {
        final List<String> calls = new ArrayList<>();
        boolean paused;

        @Override
        public long pauseReading(final long channelId) {
            calls.add("pause " + channelId);
            paused = true;
            return 0;
        }

        @Override
        public long resumeReading(final long channelId) {
            calls.add("resume " + channelId);
            paused = false;
            return 0;
        }

        @Override
        public long listen(final java.net.SocketAddress localAddress) {
            return 1;
        }

        @Override
        public long connect(final java.net.SocketAddress remoteAddress) {
            return 2;
        }

        @Override
        public long send(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            return 0;
        }

        @Override
        public void close(final long id) {
        }

        @Override
        public void close() {
        }
    }

    @Test
    void shouldPauseAChannelWhoseEventsFindTheRingFullAndDeliverEverythingInOrderOnceResumed() {
        final ReactorCommandRing otherRing = new ReactorCommandRing(reactor, new CommandRingOptions());
        final SeparatedStack paused = new SeparatedStack(reactor, otherRing, 1 << 10);
        final PausableTransport pausable = new PausableTransport();
        paused.attach(pausable);
        final List<Long> received = new ArrayList<>();
        final SeparatedAgent reader = new SeparatedAgent(paused, (channelId, buffer, offset, length) ->
            received.add(buffer.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, offset)), errors::add, 1000);
        paused.onAccepted(1, 7, PEER);
        final int messages = 200; // records of 24 bytes: a 1 KiB ring holds about 40
        long next = 0;
        while (next < messages && !pausable.paused) { // the application does not read yet
            message.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0, next++);
            paused.onMessage(7, message, 0, 8);
        }
        assertThat(paused.paused()).isEqualTo(1);
        assertThat(pausable.calls).containsExactly("pause 7");
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (received.size() < messages && System.nanoTime() < deadline) {
            while (next < messages && !pausable.paused) { // as the transport reads: not while paused
                message.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0, next++);
                paused.onMessage(7, message, 0, 8);
            }
            reader.doWork();
            paused.doWork(reactor.nowNs());
        }
        assertThat(received).containsExactlyElementsOf(java.util.stream.LongStream.range(0, messages).boxed().toList());
        assertThat(pausable.calls).contains("resume 7");
        assertThat(paused.dropped() + paused.overflowed()).isZero();
        paused.close();
        otherRing.close();
    }

    @Test
    void shouldDropAndCountAMessageThatFindsTheRingFullWhenTheTransportCannotPause() {
        long sent = 0;
        while (stack.dropped() == 0) {
            stack.onMessage(10, message, 0, 64);
            sent++;
        }
        assertThat(stack.paused()).isZero();
        final long deadline = System.nanoTime() + 10_000_000_000L;
        int delivered = 0;
        while (delivered < sent - 1 && System.nanoTime() < deadline) {
            delivered += agent.doWork();
        }
        assertThat(delivered).isEqualTo(sent - 1);
        assertThat(agent.doWork()).isZero();
    }
}
