package dev.peregrine.shm;

import dev.peregrine.testkit.SmallTmpfs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.UncheckedIOException;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Ring files on a tmpfs too small for them: the rendezvous fails with a clear reason instead of the process dying
 * of SIGBUS on the first store to a page the sparse file could not get. Needs root (it mounts a 1 MiB tmpfs).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShmFullTmpfsTest {
    private static Path mountPoint;
    private static Path socketDir;

    @BeforeAll
    static void mountSmallTmpfs() throws Exception {
        mountPoint = SmallTmpfs.mount("1m");
        socketDir = Files.createTempDirectory("peregrine-small-tmpfs-sock");
    }

    @AfterAll
    static void unmount() throws Exception {
        SmallTmpfs.unmount(mountPoint);
        if (socketDir != null) {
            Files.deleteIfExists(socketDir);
        }
    }

    @Test
    void shouldFailTheRendezvousWithNoSpaceLeftWhenTheRingsDoNotFitTheTmpfs() throws Exception {
        // two rings of 1 MiB each on a 1 MiB tmpfs: a sparse file would map, and the writer would die of SIGBUS
        final ShmOptions options = new ShmOptions().ringCapacity(1 << 20).maxMessageLength(1000)
            .ringDirectory(mountPoint).handshakeTimeoutNs(TimeUnit.SECONDS.toNanos(5));
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(socketDir.resolve("full.sock"));
        try (ShmServerSocket server = new ShmServerSocket(address, options)) {
            final CompletableFuture<Throwable> client = CompletableFuture.supplyAsync(() -> {
                try {
                    ShmSocket.connect(address, options).close();
                    return null;
                } catch (final RuntimeException ex) {
                    return ex;
                }
            });
            assertThatThrownBy(server::accept).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("no space left for ring file " + mountPoint)
                .hasMessageContaining("ENOSPC");
            assertThat(client.get(30, TimeUnit.SECONDS)).as("the client's connect fails too").isNotNull();
        }
        try (Stream<Path> left = Files.list(mountPoint)) {
            assertThat(left).as("ring files removed after the failure").isEmpty();
        }
    }

    @Test
    void shouldRefuseToCreateARingLargerThanTheTmpfsInsteadOfMappingItSparse() {
        final Path file = mountPoint.resolve("too-big");
        assertThatThrownBy(() -> ShmRingFile.create(file, 4 << 20, 1000, 100, ShmRingDescriptor.CACHE_LINE_ALIGNMENT,
            java.lang.foreign.Arena.ofAuto()))
            .isInstanceOf(UncheckedIOException.class).hasMessageContaining("ENOSPC");
        assertThat(file).as("the file the failed creation made is removed by it").doesNotExist();
    }
}
