package dev.peregrine.shm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a socket holds (file descriptors, mappings) is released when a rendezvous fails or the socket closes. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShmSocketResourceTest {
    private static final int ROUNDS = 1000;

    @TempDir
    Path dir;

    private ShmOptions options() {
        return new ShmOptions().ringCapacity(4096).maxMessageLength(100).ringDirectory(dir);
    }

    private static long openFileDescriptors() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    private List<String> ringMappings() throws IOException {
        return Files.readAllLines(Path.of("/proc/self/maps")).stream()
            .filter(line -> line.contains(dir.toString())).toList();
    }

    @Test
    void shouldLeakNoDescriptorWhenTheServerCannotCreateTheRings() throws Exception {
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("norings.sock"));
        final ShmOptions missingFolder = options().ringDirectory(dir.resolve("missing"));
        try (ShmServerSocket server = new ShmServerSocket(address, missingFolder)) {
            failRendezvous(server, address); // warm up: classes, the JDK's own descriptors
            final long before = openFileDescriptors();
            for (int i = 0; i < ROUNDS; i++) {
                failRendezvous(server, address);
            }
            assertThat(openFileDescriptors()).isEqualTo(before);
        }
    }

    private static void failRendezvous(final ShmServerSocket server, final UnixDomainSocketAddress address)
        throws IOException {
        try (SocketChannel client = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            client.connect(address);
            assertThatThrownBy(server::accept).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("missing");
        }
    }

    @Test
    void shouldLeakNoDescriptorWhenTheWaitStrategySupplierThrows() throws Exception {
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("supplier.sock"));
        final ShmOptions broken = options().waitStrategy(() -> {
            throw new IllegalStateException("no wait strategy today");
        });
        try (ShmServerSocket server = new ShmServerSocket(address, options())) {
            final CountDownLatch firstClosed = new CountDownLatch(1);
            final Thread acceptor = Thread.ofPlatform().daemon().start(() -> {
                for (int i = 0; i <= ROUNDS; i++) {
                    server.accept().close();
                    firstClosed.countDown();
                }
            });
            connectAndFail(address, broken);
            // the acceptor closes its side after the client has failed: wait for that event before counting
            assertThat(firstClosed.await(60, TimeUnit.SECONDS)).as("the acceptor closed the first connection").isTrue();
            final long before = openFileDescriptors();
            for (int i = 0; i < ROUNDS; i++) {
                connectAndFail(address, broken);
            }
            acceptor.join(TimeUnit.SECONDS.toMillis(60));
            assertThat(acceptor.isAlive()).isFalse();
            assertThat(openFileDescriptors()).isEqualTo(before);
        }
    }

    private static void connectAndFail(final UnixDomainSocketAddress address, final ShmOptions options) {
        assertThatThrownBy(() -> ShmSocket.connect(address, options)).isInstanceOf(IllegalStateException.class)
            .hasMessage("no wait strategy today");
    }

    @Test
    void shouldUnmapTheRingsWhenClosedEvenWhileAnotherThreadIsBlockedReading() throws Exception {
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("unmap.sock"));
        try (ShmServerSocket server = new ShmServerSocket(address, options())) {
            final CompletableFuture<ShmSocket> accepted = CompletableFuture.supplyAsync(server::accept);
            final ShmSocket client = ShmSocket.connect(address, options());
            final ShmSocket serverSide = accepted.get(30, TimeUnit.SECONDS);
            assertThat(ringMappings()).as("both sides map both rings").isNotEmpty();
            final CountDownLatch reading = new CountDownLatch(1);
            final CompletableFuture<Throwable> reader = CompletableFuture.supplyAsync(() -> {
                final InputStream in = client.getInputStream();
                reading.countDown();
                try {
                    return new IllegalStateException("read returned " + in.read());
                } catch (final IOException ex) {
                    return ex;
                }
            });
            reading.await();
            client.close(); // from another thread than the blocked reader: it must not fault on an unmapped ring
            final Throwable readFailure = reader.get(30, TimeUnit.SECONDS);
            serverSide.close();
            assertThat(ringMappings()).as("unmapped at close, not when the collector gets round to it").isEmpty();
            assertThat(readFailure).isInstanceOf(IOException.class).hasMessageContaining("socket closed");
            assertThatThrownBy(() -> client.getInputStream().read()).isInstanceOf(IOException.class)
                .hasMessageContaining("socket closed");
            assertThatThrownBy(() -> client.getOutputStream().write(1)).isInstanceOf(IOException.class)
                .hasMessageContaining("socket closed");
        }
    }

    @Test
    void shouldDeliverEveryWriteThatReturnedWhenTheReadingThreadClosesTheSocket() throws Exception {
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("race.sock"));
        try (ShmServerSocket server = new ShmServerSocket(address, options())) {
            for (int round = 0; round < 200; round++) {
                final CompletableFuture<ShmSocket> accepted = CompletableFuture.supplyAsync(server::accept);
                final ShmSocket client = ShmSocket.connect(address, options());
                final AtomicLong written = new AtomicLong();
                final CountDownLatch started = new CountDownLatch(1);
                final Thread writer = Thread.ofPlatform().start(() -> {
                    final DataOutputStream out = new DataOutputStream(client.getOutputStream());
                    try {
                        for (long i = 0; ; i++) {
                            out.writeLong(i); // one message per call
                            written.set(i + 1);
                            if (i == 10) {
                                started.countDown();
                            }
                        }
                    } catch (final IOException ex) {
                        started.countDown(); // closed: the count is final
                    }
                });
                try (ShmSocket serverSide = accepted.get(30, TimeUnit.SECONDS)) {
                    final DataInputStream in = new DataInputStream(serverSide.getInputStream());
                    final CompletableFuture<Long> received = CompletableFuture.supplyAsync(() -> {
                        long count = 0;
                        try {
                            while (true) {
                                assertThat(in.readLong()).isEqualTo(count);
                                count++;
                            }
                        } catch (final EOFException ex) {
                            return count;
                        } catch (final IOException ex) {
                            throw new UncheckedIOException(ex);
                        }
                    });
                    started.await();
                    client.getInputStream().close(); // the reading side closes while the writer writes
                    writer.join(TimeUnit.SECONDS.toMillis(30));
                    assertThat(writer.isAlive()).isFalse();
                    assertThat(received.get(30, TimeUnit.SECONDS)).as("round " + round).isEqualTo(written.get());
                }
            }
        }
    }
}
