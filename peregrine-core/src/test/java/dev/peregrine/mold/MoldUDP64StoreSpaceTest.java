package dev.peregrine.mold;

import dev.peregrine.testkit.Needs;
import dev.peregrine.testkit.SmallTmpfs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A new store file gets all its blocks when it is made, so that a file system without room for it is an exception
 * then, naming the file, and not a SIGBUS (an {@link InternalError}) at a later append through a sparse mapping.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MoldUDP64StoreSpaceTest {
    /**
     * Header, 2 index entries (one per 32 messages), 64 KiB of data and a packet header for each of 64 messages: 17
     * pages, one more than the small tmpfs holds.
     */
    private static final long STORE_LENGTH = 128 + 2 * 16 + (1 << 16) + 64 * 3;

    private static Path mountPoint;

    @TempDir
    Path dir;

    @Test
    void shouldGiveANewStoreFileAllItsBlocks() throws Exception {
        final Path file = dir.resolve("feed.store");
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.mapped(file, "FEED", 64, 16 << 20)) {
            assertThat(store.nextSequence()).isEqualTo(1);
        }
        final long size = Files.size(file);
        assertThat(allocatedBytes(file)).as("bytes allocated to the file of %d bytes", size).isGreaterThanOrEqualTo(size);
    }

    @Test
    void shouldRefuseToCreateAStoreOnAFileSystemWithoutRoomForIt() throws Exception {
        final Path mounted = smallTmpfs();
        final Path file = mounted.resolve("feed.store");
        assertThatThrownBy(() -> MoldUDP64MessageStore.mapped(file, "FEED", 64, 1 << 16).close())
            .isInstanceOf(UncheckedIOException.class).hasMessageContaining("file=" + file)
            .hasMessageContaining("no space left").hasMessageContaining(String.valueOf(STORE_LENGTH));
        assertThatThrownBy(() -> MoldUDP64MessageStore.mapped(file, "FEED", 64, 1 << 16).close())
            .as("the failed store let the file go: refused for room again, not as in use")
            .hasMessageContaining("no space left");
    }

    @AfterAll
    static void unmount() throws Exception {
        SmallTmpfs.unmount(mountPoint);
        mountPoint = null;
    }

    /** A 64 KiB tmpfs, mounted once for the class; skips the test, saying why, where that cannot be had. */
    private static Path smallTmpfs() throws Exception {
        if (mountPoint == null) {
            mountPoint = SmallTmpfs.mount("64k");
        }
        return mountPoint;
    }

    /** st_blocks times its unit, as stat(1) tells them; skips the test where stat cannot be run. */
    private static long allocatedBytes(final Path file) throws Exception {
        final String[] blocks;
        try {
            blocks = output("stat", "-c", "%b %B", file.toString()).split(" ");
        } catch (final IOException ex) {
            Needs.installable("stat(1) (coreutils)", false, "it cannot be run: " + ex.getMessage());
            throw ex;
        }
        Needs.installable("GNU stat(1) (coreutils)", blocks.length == 2 && blocks[0].matches("[0-9]+")
            && blocks[1].matches("[0-9]+"), "stat -c '%b %B' answered " + String.join(" ", blocks));
        return Long.parseLong(blocks[0]) * Long.parseLong(blocks[1]);
    }

    private static String output(final String... command) throws IOException, InterruptedException {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        process.waitFor();
        return output;
    }
}
