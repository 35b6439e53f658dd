package dev.peregrine.examples;

import dev.peregrine.channel.ChannelCommand;
import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.ScriptedTransport;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.tcp.TcpTransport;

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

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HelloServerTest {
    private static final byte[] HI = HelloServer.GREETING.getBytes(StandardCharsets.US_ASCII);

    @Test
    void shouldGreetEveryConnectionOverRealSockets() throws Exception {
        final HelloServer hello = new HelloServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), line -> { });
        final Reactor reactor = ExampleRig.startReactor();
        try {
            final TcpTransport transport = new TcpTransport(reactor, HelloServer.options(), hello);
            final long serverId = ExampleRig.onReactor(reactor, () -> hello.start(transport));
            ExampleRig.awaitOnReactor(reactor, () -> transport.localAddress(serverId) != null);
            final SocketAddress address = ExampleRig.onReactor(reactor, () -> transport.localAddress(serverId));

            for (int i = 0; i < 3; i++) {
                try (Socket client = new Socket()) {
                    client.connect(address);
                    assertThat(client.getInputStream().readNBytes(HI.length)).isEqualTo(HI);
                }
            }
            assertThat(ExampleRig.onReactor(reactor, hello::greeted)).isEqualTo(3);
            ExampleRig.onReactor(reactor, () -> {
                transport.close();
                return true;
            });
        } finally {
            reactor.close();
        }
    }

    @Test
    void shouldGreetFromAScriptedEventStreamWithoutSockets() {
        final InetSocketAddress address = InetSocketAddress.createUnresolved("example", 8889);
        final InetSocketAddress peer = InetSocketAddress.createUnresolved("peer", 40000);
        final HelloServer hello = new HelloServer(address, line -> { });
        final ScriptedTransport transport = new ScriptedTransport();

        final long serverId = hello.start(transport);
        ChannelEvent.replay(List.of(
            new ChannelEvent.Listening(serverId, address),
            new ChannelEvent.Accepted(serverId, 7, peer),
            ChannelEvent.Message.of(7, "hello?"),
            new ChannelEvent.Accepted(serverId, 8, peer)), hello);

        assertThat(transport.commands()).containsExactly(
            new ChannelCommand.Listen(address, 1),
            new ChannelCommand.Send(7, HI, 0),
            new ChannelCommand.Send(8, HI, 0));
        assertThat(hello.greeted()).isEqualTo(2);
    }
}
