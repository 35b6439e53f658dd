package dev.peregrine.examples;

import dev.peregrine.channel.ChannelCommand;
import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.CommandRecorder;
import dev.peregrine.channel.EventRecorder;
import dev.peregrine.channel.ScriptedTransport;
import dev.peregrine.channel.SendResult;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.tcp.Framing;
import dev.peregrine.tcp.TcpTransport;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The echo server on real sockets, on a scripted event stream, and the two tied together: a real run
 * recorded (events and commands) and replayed into a fresh server with no sockets issues exactly the
 * same commands.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EchoServerTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @Test
    void shouldEchoFromAScriptedEventStreamWithoutSockets() {
        final InetSocketAddress peer = InetSocketAddress.createUnresolved("peer", 1);
        final EchoServer echo = new EchoServer(ANY_PORT, line -> { });
        final ScriptedTransport transport = new ScriptedTransport();

        final long serverId = echo.start(transport);
        ChannelEvent.replay(List.of(
            new ChannelEvent.Listening(serverId, ANY_PORT),
            new ChannelEvent.Accepted(serverId, 5, peer),
            ChannelEvent.Message.of(5, "one"),
            ChannelEvent.Message.of(5, ""),
            ChannelEvent.Message.of(5, "two")), echo);
        transport.sendResult(SendResult.BACK_PRESSURED);
        ChannelEvent.Message.of(5, "three").deliverTo(echo);

        assertThat(transport.commands()).containsExactly(
            new ChannelCommand.Listen(ANY_PORT, 1),
            new ChannelCommand.Send(5, "one".getBytes(StandardCharsets.US_ASCII), 0),
            new ChannelCommand.Send(5, new byte[0], 0),
            new ChannelCommand.Send(5, "two".getBytes(StandardCharsets.US_ASCII), 0),
            new ChannelCommand.Send(5, "three".getBytes(StandardCharsets.US_ASCII), SendResult.BACK_PRESSURED),
            new ChannelCommand.Abort(5)); // the echo aborts a channel that does not read its echoes
        assertThat(echo.echoed()).isEqualTo(3);
    }

    @Test
    void shouldReplayARecordedRealRunIntoTheSameCommandsWithoutSockets() throws Exception {
        // 1. a real run on loopback sockets, recording events (with message bytes) and commands
        final EchoServer real = new EchoServer(ANY_PORT, line -> { });
        final EventRecorder events = new EventRecorder(real);
        final Reactor reactor = ExampleRig.startReactor();
        final CommandRecorder commands;
        try {
            final TcpTransport tcp = new TcpTransport(reactor, EchoServer.options(Framing.parse("length:2be"), 1024), events);
            commands = new CommandRecorder(tcp);
            final long serverId = ExampleRig.onReactor(reactor, () -> real.start(commands));
            ExampleRig.awaitOnReactor(reactor, () -> tcp.localAddress(serverId) != null);
            final SocketAddress address = ExampleRig.onReactor(reactor, () -> tcp.localAddress(serverId));
            for (int client = 0; client < 2; client++) {
                try (Socket socket = new Socket()) {
                    socket.connect(address);
                    final DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                    final DataInputStream in = new DataInputStream(socket.getInputStream());
                    for (final String text : List.of("alpha", "", "client " + client)) {
                        final byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
                        out.writeShort(bytes.length);
                        out.write(bytes);
                        assertThat(in.readUnsignedShort()).isEqualTo(bytes.length);
                        assertThat(in.readNBytes(bytes.length)).isEqualTo(bytes);
                    }
                }
            }
            ExampleRig.awaitOnReactor(reactor,
                () -> events.events().stream().filter(ChannelEvent.Closed.class::isInstance).count() == 2);
        } finally {
            reactor.close(); // joins the reactor thread: its recordings are now safe to read here
        }
        final List<ChannelEvent> recordedEvents = events.events();
        final List<ChannelCommand> recordedCommands = commands.commands();
        assertThat(recordedEvents).filteredOn(ChannelEvent.Message.class::isInstance).hasSize(6);
        assertThat(recordedCommands).filteredOn(ChannelCommand.Send.class::isInstance).hasSize(6);

        // 2. a fresh server, no sockets: the recorded events in, the commands out
        final EchoServer replayed = new EchoServer(ANY_PORT, line -> { });
        final ScriptedTransport fake = ScriptedTransport.replaying(recordedCommands);
        replayed.start(fake);
        ChannelEvent.replay(recordedEvents, replayed);

        assertThat(fake.commands()).containsExactlyElementsOf(recordedCommands);
        assertThat(replayed.echoed()).isEqualTo(real.echoed()).isEqualTo(6);
    }
}
