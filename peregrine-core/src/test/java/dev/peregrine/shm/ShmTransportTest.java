package dev.peregrine.shm;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.SendResult;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.testkit.AllocationMeter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShmTransportTest {
    @TempDir
    Path dir;

    private final List<Throwable> errors = new ArrayList<>();
    private final Reactor reactor = new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy())
        .errorHandler(errors::add));

    /** Turns events into strings; messages carry their first long. */
    static final class Recorder implements ChannelHandler {
        final List<String> events = new ArrayList<>();
        final List<Long> messages = new ArrayList<>();
        long accepted = -1;
        long echoFrom = -1;
        ShmTransport echoThrough;
        long received;
        boolean countOnly;

        @Override
        public void onListening(final long serverId, final SocketAddress localAddress) {
            events.add("listening " + serverId);
        }

        @Override
        public void onListenFailed(final long serverId, final String reason) {
            events.add("listenFailed " + reason);
        }

        @Override
        public void onAccepted(final long serverId, final long channelId, final SocketAddress remoteAddress) {
            accepted = channelId;
            events.add("accepted");
        }

        @Override
        public void onConnected(final long channelId, final SocketAddress remoteAddress) {
            events.add("connected " + channelId);
        }

        @Override
        public void onConnectFailed(final long channelId, final String reason) {
            events.add("connectFailed " + reason);
        }

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            received++;
            if (countOnly) {
                return;
            }
            if (echoThrough != null) {
                echoThrough.send(channelId, buffer, offset, length);
            } else if (length >= 8) {
                messages.add(buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset));
            } else {
                messages.add((long)-length);
            }
        }

        @Override
        public void onSent(final long channelId, final long bytesWritten, final long bytesBuffered) {
            events.add("sent");
        }

        @Override
        public void onClosed(final long channelId, final CloseReason reason, final String detail) {
            events.add("closed " + channelId + " " + reason);
        }
    }

    private final Recorder serverEvents = new Recorder();
    private final Recorder clientEvents = new Recorder();
    private final ShmOptions options = new ShmOptions().ringCapacity(64 * 1024).maxMessageLength(1024)
        .maxMessagesInFlight(100);

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

    private long[] connectPair(final ShmTransport server, final ShmTransport client) {
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("t.sock"));
        final long serverId = server.listen(address);
        runUntil(() -> serverEvents.events.contains("listening " + serverId));
        final long channelId = client.connect(address);
        runUntil(() -> clientEvents.events.contains("connected " + channelId) && serverEvents.accepted > 0);
        return new long[] {serverId, channelId, serverEvents.accepted};
    }

    @Test
    void shouldConnectEchoInOrderAndReportOrderlyCloseAfterDraining() {
        final ShmTransport server = new ShmTransport(reactor, options.ringDirectory(dir), serverEvents);
        final ShmTransport client = new ShmTransport(reactor, options, clientEvents);
        serverEvents.echoThrough = server;
        final long[] ids = connectPair(server, client);
        final MemorySegment message = Arena.ofAuto().allocate(1024);
        for (long i = 0; i < 1000; i++) {
            message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
            while (client.send(ids[1], message, 0, (int)(8 + i % 1000)) == SendResult.BACK_PRESSURED) {
                reactor.doWork();
            }
        }
        assertThat(client.send(ids[1], message, 0, 0)).isZero();
        assertThat(client.send(ids[1], message, 0, 1025)).isEqualTo(SendResult.MESSAGE_TOO_LARGE);
        assertThat(client.send(12345, message, 0, 8)).isEqualTo(SendResult.NOT_CONNECTED);
        runUntil(() -> clientEvents.messages.size() == 1001);
        for (int i = 0; i < 1000; i++) {
            assertThat(clientEvents.messages.get(i)).isEqualTo(i);
        }
        assertThat(clientEvents.messages.get(1000)).isZero(); // the zero-length message
        // the server writes, then closes: the client gets the messages first, then BY_PEER
        serverEvents.echoThrough = null;
        message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 77L);
        server.send(ids[2], message, 0, 8);
        server.close(ids[2]);
        runUntil(() -> clientEvents.events.contains("closed " + ids[1] + " BY_PEER"));
        assertThat(clientEvents.messages.getLast()).isEqualTo(77L);
        assertThat(serverEvents.events).contains("closed " + ids[2] + " LOCAL");
        assertThat(client.send(ids[1], message, 0, 8)).isEqualTo(SendResult.NOT_CONNECTED);
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldReportBackPressureAndThenOnSentOnceThePeerReads() {
        final ShmTransport server = new ShmTransport(reactor, options.ringDirectory(dir), serverEvents);
        final ShmTransport client = new ShmTransport(reactor, options, clientEvents);
        final long[] ids = connectPair(server, client);
        final MemorySegment message = Arena.ofAuto().allocate(8);
        int sent = 0;
        while (client.send(ids[1], message, 0, 8) == 0) {
            sent++;
        }
        assertThat(sent).isEqualTo(100); // the in-flight message limit
        runUntil(() -> clientEvents.events.contains("sent"));
        assertThat(serverEvents.received).isEqualTo(100);
        assertThat(client.send(ids[1], message, 0, 8)).isZero();
    }

    @Test
    void shouldFailToConnectWhereNobodyListensAndRefuseOtherAddressKinds() {
        final ShmTransport client = new ShmTransport(reactor, options, clientEvents);
        client.connect(UnixDomainSocketAddress.of(dir.resolve("nobody.sock")));
        client.connect(new java.net.InetSocketAddress("127.0.0.1", 1));
        client.listen(new java.net.InetSocketAddress("127.0.0.1", 0));
        runUntil(() -> clientEvents.events.size() == 3);
        assertThat(clientEvents.events.get(0)).startsWith("connectFailed").contains("nobody.sock");
        assertThat(clientEvents.events.get(1)).startsWith("connectFailed").contains("UnixDomainSocketAddress");
        assertThat(clientEvents.events.get(2)).startsWith("listenFailed").contains("UnixDomainSocketAddress");
    }

    @Test
    void shouldAllocateNothingPerMessageOnEitherSideInSteadyState() {
        final ShmTransport server = new ShmTransport(reactor, options.ringDirectory(dir), serverEvents);
        final ShmTransport client = new ShmTransport(reactor, options, clientEvents);
        serverEvents.echoThrough = server;
        clientEvents.echoThrough = null;
        final long[] ids = connectPair(server, client);
        final MemorySegment message = Arena.ofAuto().allocate(64);
        clientEvents.countOnly = true;
        final Recorder counter = clientEvents;
        final Runnable measured = () -> {
            final long before = counter.received;
            client.send(ids[1], message, 0, 32);
            while (counter.received == before) {
                reactor.doWork();
            }
        };
        // zero tolerance once the JIT has settled: the first whole set of ten windows that allocates nothing, at most 5
        final AllocationMeter.Windows windows = AllocationMeter.firstCleanSet(100_000, 20_000, 10, 5, measured);
        assertThat(windows.totalBytes()).as("bytes in the last set of %d", windows.sets()).isZero();
    }
}
