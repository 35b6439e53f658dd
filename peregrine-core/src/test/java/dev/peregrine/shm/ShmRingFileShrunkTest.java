package dev.peregrine.shm;

import dev.peregrine.channel.SendResult;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client that keeps the server's outbound ring file open past the handshake (the file is its user's) and
 * truncates it: every access to that mapping faults. Only that channel is closed, with the reason and its
 * {@code onClosed}; a send to it answers CLOSED instead of throwing the fault at the caller; the reactor goes on.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShmRingFileShrunkTest {
    @TempDir
    Path dir;

    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final Reactor reactor = new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy())
        .errorHandler(errors::add));

    @AfterEach
    void closeReactor() {
        reactor.close();
    }

    private void runUntil(final BooleanSupplier condition) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition not reached in time; errors=" + errors).isLessThan(deadline);
            reactor.doWork();
        }
    }

    @ParameterizedTest(name = "the application sends to it first={0}")
    @ValueSource(booleans = {true, false})
    void shouldCloseOnlyTheChannelWhoseRingFileShrankAndTellWhy(final boolean send) throws Exception {
        final ShmTransportFaultTest.Recorder server = new ShmTransportFaultTest.Recorder();
        final ShmTransport transport = new ShmTransport(reactor, new ShmOptions().ringCapacity(64 * 1024)
            .maxMessageLength(1024).maxMessagesInFlight(100).ringDirectory(dir), server);
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("h.sock"));
        final long serverId = transport.listen(address);
        runUntil(() -> server.listening.containsKey(serverId));

        try (SocketChannel client = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            client.connect(address);
            client.configureBlocking(false);
            final ByteBuffer buffer = ShmHandshake.newBuffer();
            final ShmHandshake.Offer[] offer = new ShmHandshake.Offer[1];
            runUntil(() -> {
                try {
                    client.read(buffer);
                } catch (final Exception ex) {
                    throw new AssertionError(ex);
                }
                return (offer[0] = ShmHandshake.readOffer(buffer)) != null;
            });
            // opened before the ACK, after which the server removes the file's name
            try (FileChannel serverToClient = FileChannel.open(offer[0].serverToClient(), StandardOpenOption.WRITE)) {
                client.write(ByteBuffer.wrap(new byte[] {ShmHandshake.ACK}));
                runUntil(() -> server.accepted.size() == 1);
                final long channel = server.accepted.get(0);

                serverToClient.truncate(0);
                if (send) {
                    final MemorySegment message = Arena.ofAuto().allocate(8);
                    assertThat(transport.send(channel, message, 0, 8)).as("no fault thrown at the caller")
                        .isEqualTo(SendResult.CLOSED);
                }
                runUntil(() -> server.events.stream().anyMatch(event -> event.startsWith("closed " + channel)));

                assertThat(server.events).anyMatch(event -> event.startsWith("closed " + channel + " ERROR")
                    && event.contains("shared memory faulted"));
                assertThat(errors).anyMatch(error -> String.valueOf(error.getMessage()).contains("shared memory faulted"));
                assertThat(transport.peerFaults()).isEqualTo(1);
                assertThat(transport.send(channel, Arena.ofAuto().allocate(8), 0, 8)).isEqualTo(SendResult.NOT_CONNECTED);
            }
        }
    }
}
