package dev.peregrine.shm;

import dev.peregrine.testkit.AllocationMeter;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShmSocketTest {
    @TempDir
    Path dir;

    private ShmOptions options() {
        return new ShmOptions().ringCapacity(64 * 1024).maxMessageLength(1000).ringDirectory(dir);
    }

    @Test
    void shouldEchoThroughBlockingStreamsAndEndWithMinusOneOnOrderlyClose() throws Exception {
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("echo.sock"));
        try (ShmServerSocket server = new ShmServerSocket(address, options())) {
            final CompletableFuture<Long> echoed = CompletableFuture.supplyAsync(() -> {
                try (ShmSocket socket = server.accept()) {
                    final InputStream in = socket.getInputStream();
                    final OutputStream out = socket.getOutputStream();
                    final byte[] buffer = new byte[700];
                    long total = 0;
                    int read;
                    while ((read = in.read(buffer)) >= 0) {
                        out.write(buffer, 0, read);
                        total += read;
                    }
                    return total;
                } catch (final IOException ex) {
                    throw new IllegalStateException(ex);
                }
            });
            try (ShmSocket client = ShmSocket.connect(address, options())) {
                // both ring files are gone once the server has the client's acknowledgement
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (ringFiles() > 0 && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                assertThat(ringFiles()).isZero();
                final DataOutputStream out = new DataOutputStream(client.getOutputStream());
                final DataInputStream in = new DataInputStream(client.getInputStream());
                final byte[] big = ShmRingTest.pattern(5000, 3); // longer than a message: split and rejoined
                for (int i = 0; i < 2000; i++) {
                    out.writeLong(i);
                    if (i % 100 == 0) {
                        out.write(big);
                    }
                    assertThat(in.readLong()).isEqualTo(i);
                    if (i % 100 == 0) {
                        final byte[] back = new byte[big.length];
                        in.readFully(back);
                        assertThat(back).isEqualTo(big);
                    }
                }
            }
            assertThat(echoed.get(30, TimeUnit.SECONDS)).isEqualTo(2000L * 8 + 20L * 5000);
        }
        assertThat(Files.exists(address.getPath())).isFalse();
    }

    @Test
    void shouldFollowTheServersRecordAlignmentWhateverTheClientAskedFor() throws Exception {
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("packed.sock"));
        try (ShmServerSocket server = new ShmServerSocket(address, options().recordAlignment(8))) {
            final CompletableFuture<ShmSocket> accepted = CompletableFuture.supplyAsync(server::accept);
            try (ShmSocket client = ShmSocket.connect(address, options().recordAlignment(64));
                 ShmSocket served = accepted.get(10, TimeUnit.SECONDS)) {
                final ShmRingWriter writer = client.writer();
                for (int i = 0; i < 3; i++) {
                    final long index = writer.tryClaim(12);
                    writer.buffer().set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, index, i);
                    writer.commit(index);
                }
                // 8 + 12 bytes packed at 8: records of 24 bytes, not 64
                assertThat(writer.tailPosition()).isEqualTo(3 * 24);
                final ShmRingTest.Collector collector = new ShmRingTest.Collector();
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (collector.messages.size() < 3 && System.nanoTime() < deadline) {
                    served.reader().poll(collector, 10);
                }
                assertThat(collector.messages).hasSize(3);
            }
        }
    }

    @Test
    void shouldAllocateNothingPerMessageThroughTheStreamsOnEitherSide() throws Exception {
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("alloc.sock"));
        final int warmup = 30_000;
        final int window = 10_000;
        final int windows = 5;
        // zero tolerance once the JIT has settled, on both sides: each measures a set of windows, then both agree
        // whether to measure another (either side allocated), at most five sets; so both end on the same set
        final AllocationMeter.CleanSets sets = new AllocationMeter.CleanSets(2, 5);
        try (ShmServerSocket server = new ShmServerSocket(address, options())) {
            final CompletableFuture<AllocationMeter.Windows> serverAllocated = CompletableFuture.supplyAsync(() -> {
                try (ShmSocket socket = server.accept()) {
                    final InputStream in = socket.getInputStream();
                    final OutputStream out = socket.getOutputStream();
                    final byte[] block = new byte[32];
                    final Runnable echo = () -> {
                        try {
                            readBlock(in, block);
                            out.write(block);
                        } catch (final IOException ex) {
                            throw new IllegalStateException(ex);
                        }
                    };
                    AllocationMeter.bytesAllocatedBy(warmup, 0, echo);
                    return sets.measure(window, windows, echo);
                }
            });
            try (ShmSocket client = ShmSocket.connect(address, options())) {
                final InputStream in = client.getInputStream();
                final OutputStream out = client.getOutputStream();
                final byte[] block = new byte[32];
                final Runnable roundTrip = () -> {
                    try {
                        out.write(block);
                        readBlock(in, block);
                    } catch (final IOException ex) {
                        throw new IllegalStateException(ex);
                    }
                };
                AllocationMeter.bytesAllocatedBy(warmup, 0, roundTrip);
                final AllocationMeter.Windows measured = sets.measure(window, windows, roundTrip);
                assertThat(measured.totalBytes()).as("client: bytes in the last set of %d (windows of %d round trips)",
                    measured.sets(), window).isZero();
            }
            final AllocationMeter.Windows served = serverAllocated.get(30, TimeUnit.SECONDS);
            assertThat(served.totalBytes()).as("server: bytes in the last set of %d (windows of %d echoes)",
                served.sets(), window).isZero();
            assertThat(served.sets()).as("both sides measured the same sets").isEqualTo(sets.sets());
        }
    }

    private long ringFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith(ShmRingFile.PREFIX)).count();
        }
    }

    private static void readBlock(final InputStream in, final byte[] block) throws IOException {
        int read = 0;
        while (read < block.length) {
            final int count = in.read(block, read, block.length - read);
            if (count < 0) {
                throw new IOException("end of stream");
            }
            read += count;
        }
    }

    @Test
    void shouldRefuseToListenWhereAServerIsAlive() {
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("busy.sock"));
        try (ShmServerSocket server = new ShmServerSocket(address, options())) {
            assertThat(server.address()).isEqualTo(address);
            assertThatThrownBy(() -> new ShmServerSocket(address, options())).hasMessageContaining("address in use");
        }
    }

    @Test
    void shouldReplaceAStaleSocketFileAndRemoveLeftoverRingsOfDeadProcesses() throws Exception {
        final Path stale = dir.resolve("stale.sock");
        Files.createFile(stale);
        final Path leftover = dir.resolve(ShmRingFile.PREFIX + "999999999-1-c2s");
        final Path live = dir.resolve(ShmRingFile.PREFIX + ProcessHandle.current().pid() + "-424242-c2s");
        Files.createFile(leftover);
        Files.createFile(live);
        try (ShmServerSocket server = new ShmServerSocket(UnixDomainSocketAddress.of(stale), options())) {
            assertThat(server.address().getPath()).isEqualTo(stale);
            assertThat(Files.exists(leftover)).isFalse();
            assertThat(Files.exists(live)).isTrue();
        }
    }

    @Test
    void shouldFailToConnectWhereNobodyListens() {
        assertThatThrownBy(() -> ShmSocket.connect(UnixDomainSocketAddress.of(dir.resolve("none.sock")), options()))
            .hasMessageContaining("none.sock");
    }
}
