package dev.peregrine.channel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The record/replay tools: events and commands as values, a transport with no sockets, and the
 * guarantee that a recording is a copy, not a view of buffers that are later reused.
 */
class ChannelRecordingTest {
    private static final SocketAddress ADDRESS = InetSocketAddress.createUnresolved("host", 1);

    /** Connects, says hello once connected, and closes after the first reply. */
    private static final class Greeter implements ChannelHandler {
        private final Transport transport;

        Greeter(final Transport transport) {
            this.transport = transport;
        }

        @Override
        public void onConnected(final long channelId, final SocketAddress remoteAddress) {
            transport.send(channelId, MemorySegment.ofArray("hello".getBytes(StandardCharsets.US_ASCII)), 0, 5);
        }

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            transport.close(channelId);
        }
    }

    @Test
    void shouldRecordEventsAsCopiesOfTheirBytes() {
        final EventRecorder recorder = new EventRecorder();
        final byte[] reused = "abc".getBytes(StandardCharsets.US_ASCII);

        recorder.onMessage(3, MemorySegment.ofArray(reused), 1, 2);
        reused[1] = 'X';
        recorder.onClosed(3, CloseReason.BY_PEER, "end of stream");

        assertThat(recorder.events()).containsExactly(ChannelEvent.Message.of(3, "bc"),
            new ChannelEvent.Closed(3, CloseReason.BY_PEER, "end of stream"));
    }

    @Test
    void shouldDriveAnApplicationFromAScriptWithNoSockets() {
        final ScriptedTransport transport = new ScriptedTransport();
        final Greeter greeter = new Greeter(transport);

        final long id = transport.connect(ADDRESS);
        ChannelEvent.replay(List.of(new ChannelEvent.Connected(id, ADDRESS), ChannelEvent.Message.of(id, "hi")), greeter);

        assertThat(transport.commands()).containsExactly(
            new ChannelCommand.Connect(ADDRESS, 1),
            new ChannelCommand.Send(1, "hello".getBytes(StandardCharsets.US_ASCII), 0),
            new ChannelCommand.Close(1));
    }

    @Test
    void shouldAnswerAReplayWithTheRecordedResults() {
        final List<ChannelCommand> recorded = List.of(new ChannelCommand.Connect(ADDRESS, 42),
            new ChannelCommand.Send(42, "hello".getBytes(StandardCharsets.US_ASCII), SendResult.BACK_PRESSURED));
        final ScriptedTransport transport = ScriptedTransport.replaying(recorded);
        final Greeter greeter = new Greeter(transport);

        final long id = transport.connect(ADDRESS);
        new ChannelEvent.Connected(id, ADDRESS).deliverTo(greeter);

        assertThat(id).isEqualTo(42);
        assertThat(transport.commands()).isEqualTo(recorded);
    }

    @Test
    void shouldRecordCommandsWithTheResultsOfTheRealTransport() {
        final ScriptedTransport real = new ScriptedTransport().sendResult(7);
        final CommandRecorder recorder = new CommandRecorder(real);
        final MemorySegment buffer = MemorySegment.ofArray(new byte[] {1, 2, 3});

        recorder.listen(ADDRESS);
        recorder.send(1, buffer, 0, 3);
        buffer.set(ValueLayout.JAVA_BYTE, 0, (byte)9);
        recorder.close(1);
        recorder.close();

        assertThat(recorder.commands()).containsExactly(new ChannelCommand.Listen(ADDRESS, 1),
            new ChannelCommand.Send(1, new byte[] {1, 2, 3}, 7), new ChannelCommand.Close(1), new ChannelCommand.CloseAll());
        assertThat(recorder.commands()).isEqualTo(real.commands());
    }

    @Test
    void shouldRecordAnAbortAsAnAbortAndPassItOnAsOne() {
        final ScriptedTransport real = new ScriptedTransport();
        final CommandRecorder recorder = new CommandRecorder(real);

        recorder.abort(7);

        assertThat(recorder.commands()).containsExactly(new ChannelCommand.Abort(7));
        assertThat(real.commands()).as("the real transport aborted, not closed").containsExactly(new ChannelCommand.Abort(7));
    }

    @Test
    void shouldLeaveASendTheTransportRefusedWithAnExceptionOutOfTheRecording() {
        final CommandRecorder recorder = new CommandRecorder(new Transport() {
            @Override
            public long listen(final SocketAddress localAddress) {
                return 1;
            }

            @Override
            public long connect(final SocketAddress remoteAddress) {
                return 1;
            }

            @Override
            public long send(final long channelId, final MemorySegment buffer, final long offset, final int length) {
                throw new IllegalArgumentException("length=" + length + " differs from the fixed framing's");
            }

            @Override
            public void close(final long id) {
            }

            @Override
            public void close() {
            }
        });
        final MemorySegment buffer = MemorySegment.ofArray(new byte[] {1, 2, 3});

        assertThatThrownBy(() -> recorder.send(1, buffer, 0, 3)).isInstanceOf(IllegalArgumentException.class);
        recorder.close(1);

        assertThat(recorder.commands()).containsExactly(new ChannelCommand.Close(1));
    }
}
