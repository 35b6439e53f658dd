package dev.peregrine.shm;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.tcp.TcpOptions;
import dev.peregrine.tcp.TcpTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** Handlers that throw or close their channel mid-batch, and completions when the reactor's queue is full. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShmTransportFaultTest {
    @TempDir
    Path dir;

    private final List<Throwable> errors = new ArrayList<>();
    private Reactor reactor = new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy())
        .errorHandler(errors::add));
    private final ShmOptions options = new ShmOptions().ringCapacity(64 * 1024).maxMessageLength(1024)
        .maxMessagesInFlight(100);
    private final MemorySegment message = Arena.ofAuto().allocate(64);

    /** Records every event as a string; messages as "message <channel> <first long>". */
    static final class Recorder implements ChannelHandler {
        final List<String> events = new ArrayList<>();
        final Map<Long, SocketAddress> listening = new HashMap<>();
        final List<Long> accepted = new ArrayList<>();
        long throwOn = -1;
        long closeOn = -1;
        Runnable closer;
        Transport echo;

        interface Transport {
            long send(long channelId, MemorySegment buffer, long offset, int length);
        }

        @Override
        public void onListening(final long serverId, final SocketAddress localAddress) {
            listening.put(serverId, localAddress);
            events.add("listening " + serverId);
        }

        @Override
        public void onListenFailed(final long serverId, final String reason) {
            events.add("listenFailed " + serverId);
        }

        @Override
        public void onAccepted(final long serverId, final long channelId, final SocketAddress remoteAddress) {
            accepted.add(channelId);
            events.add("accepted " + channelId);
        }

        @Override
        public void onConnected(final long channelId, final SocketAddress remoteAddress) {
            events.add("connected " + channelId);
        }

        @Override
        public void onConnectFailed(final long channelId, final String reason) {
            events.add("connectFailed " + channelId);
        }

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            events.add("message " + channelId + " " + buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset));
            if (channelId == throwOn) {
                throw new IllegalStateException("handler bug on channel " + channelId);
            }
            if (channelId == closeOn) {
                closer.run();
            }
            if (echo != null) {
                echo.send(channelId, buffer, offset, length);
            }
        }

        @Override
        public void onClosed(final long channelId, final CloseReason reason, final String detail) {
            events.add("closed " + channelId + " " + reason + (reason == CloseReason.ERROR ? " " + detail : ""));
        }

        long count(final String prefix) {
            return events.stream().filter(event -> event.startsWith(prefix)).count();
        }
    }

    @AfterEach
    void closeReactor() {
        reactor.close();
    }

    private void runUntil(final BooleanSupplier condition) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition not reached in time").isLessThan(deadline);
            reactor.doWork();
        }
    }

    private void send(final ShmTransport transport, final long channelId, final long value) {
        message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        assertThat(transport.send(channelId, message, 0, 8)).isZero();
    }

    @Test
    void shouldCloseOnlyTheThrowingChannelWhileAnotherShmAndATcpChannelOnTheSameReactorGoOn() {
        final Recorder server = new Recorder();
        final Recorder client = new Recorder();
        final ShmTransport serverShm = new ShmTransport(reactor, options.ringDirectory(dir), server);
        final ShmTransport clientShm = new ShmTransport(reactor, options, client);
        server.echo = serverShm::send;
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("f.sock"));
        final long serverId = serverShm.listen(address);
        runUntil(() -> server.listening.containsKey(serverId));
        final long clientA = clientShm.connect(address);
        runUntil(() -> server.accepted.size() == 1 && client.events.contains("connected " + clientA));
        final long serverA = server.accepted.get(0);
        final long clientB = clientShm.connect(address);
        runUntil(() -> server.accepted.size() == 2 && client.events.contains("connected " + clientB));

        final Recorder tcpServer = new Recorder();
        final Recorder tcpClient = new Recorder();
        final TcpTransport tcpServerTransport = new TcpTransport(reactor, new TcpOptions(), tcpServer);
        final TcpTransport tcpClientTransport = new TcpTransport(reactor, new TcpOptions(), tcpClient);
        tcpServer.echo = tcpServerTransport::send;
        final long tcpServerId = tcpServerTransport.listen(new InetSocketAddress("127.0.0.1", 0));
        runUntil(() -> tcpServer.listening.containsKey(tcpServerId));
        final long tcpChannel = tcpClientTransport.connect(tcpServer.listening.get(tcpServerId));
        runUntil(() -> tcpClient.events.contains("connected " + tcpChannel) && tcpServer.accepted.size() == 1);

        server.throwOn = serverA;
        send(clientShm, clientA, 1);
        send(clientShm, clientA, 2); // in the same batch: must not reach the handler after the close
        runUntil(() -> client.events.contains("closed " + clientA + " BY_PEER"));
        assertThat(server.count("message " + serverA)).isEqualTo(1);
        assertThat(server.events.getLast()).startsWith("closed " + serverA + " ERROR handler failed: ")
            .contains("handler bug on channel " + serverA);
        assertThat(serverShm.handlerFailures()).isEqualTo(1);
        assertThat(errors).hasSize(1);
        assertThat(errors.getFirst()).hasMessageContaining("channel " + serverA)
            .hasRootCauseMessage("handler bug on channel " + serverA);

        // the reactor goes on: the other shared-memory channel and the TCP channel still carry traffic both ways
        for (long i = 10; i < 20; i++) {
            send(clientShm, clientB, i);
            message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
            assertThat(tcpClientTransport.send(tcpChannel, message, 0, 8)).isNotNegative(); // buffered, written at the end of the cycle
        }
        runUntil(() -> client.count("message " + clientB) == 10 && tcpClient.count("message " + tcpChannel) == 10);
        assertThat(client.events.stream().filter(event -> event.startsWith("message " + clientB + " ")))
            .containsExactly("message " + clientB + " 10", "message " + clientB + " 11", "message " + clientB + " 12",
                "message " + clientB + " 13", "message " + clientB + " 14", "message " + clientB + " 15",
                "message " + clientB + " 16", "message " + clientB + " 17", "message " + clientB + " 18",
                "message " + clientB + " 19");
        assertThat(errors).hasSize(1);
        assertThat(serverShm.handlerFailures()).isEqualTo(1);
    }

    @Test
    void shouldDeliverNothingAfterOnClosedWhenTheHandlerClosesItsChannelMidBatch() {
        final Recorder server = new Recorder();
        final Recorder client = new Recorder();
        final ShmTransport serverShm = new ShmTransport(reactor, options.ringDirectory(dir), server);
        final ShmTransport clientShm = new ShmTransport(reactor, options, client);
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("c.sock"));
        final long serverId = serverShm.listen(address);
        runUntil(() -> server.listening.containsKey(serverId));
        final long channel = clientShm.connect(address);
        runUntil(() -> server.accepted.size() == 1 && client.events.contains("connected " + channel));
        final long serverChannel = server.accepted.getFirst();
        server.closeOn = serverChannel;
        server.closer = () -> serverShm.close(serverChannel);
        for (long i = 0; i < 50; i++) {
            send(clientShm, channel, i); // all in the ring before the server polls: one batch
        }
        runUntil(() -> client.events.contains("closed " + channel + " BY_PEER"));
        for (int i = 0; i < 10; i++) {
            reactor.doWork();
        }
        final List<String> forChannel = server.events.stream()
            .filter(event -> event.contains(" " + serverChannel)).toList();
        assertThat(forChannel).containsExactly("accepted " + serverChannel, "message " + serverChannel + " 0",
            "closed " + serverChannel + " LOCAL");
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldDeliverListenAndConnectCompletionsEvenWhenTheReactorQueueIsFull() {
        reactor.close();
        reactor = new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy()).errorHandler(errors::add)
            .commandQueueCapacity(2));
        final Recorder events = new Recorder();
        final ShmTransport transport = new ShmTransport(reactor, options.ringDirectory(dir), events);
        while (reactor.execute(() -> {
        })) {
            // other threads filled the hand-over queue
        }
        final long listened = transport.listen(UnixDomainSocketAddress.of(dir.resolve("q.sock")));
        final long badListen = transport.listen(new InetSocketAddress("127.0.0.1", 0));
        final long badConnect = transport.connect(UnixDomainSocketAddress.of(dir.resolve("nobody.sock")));
        final long otherConnect = transport.connect(new InetSocketAddress("127.0.0.1", 1));
        for (int i = 0; i < 100 && events.events.size() < 4; i++) {
            reactor.doWork();
        }
        assertThat(events.events).containsExactlyInAnyOrder("listening " + listened, "listenFailed " + badListen,
            "connectFailed " + badConnect, "connectFailed " + otherConnect);
        assertThat(errors).isEmpty();
        transport.close();
    }
}
