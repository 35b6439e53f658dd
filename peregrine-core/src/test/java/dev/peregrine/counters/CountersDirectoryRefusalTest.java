package dev.peregrine.counters;

import dev.peregrine.internal.FileLocks;
import dev.peregrine.testkit.Needs;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A counters directory someone else could have made or could write to is refused, with one line naming it and what
 * is wrong, and the process runs without a counters file rather than put one there or clean up there.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CountersDirectoryRefusalTest {
    private final String directoryBefore = System.getProperty(CountersManager.DIRECTORY_PROPERTY);

    @TempDir
    Path dir;

    @BeforeEach
    void processWideCountersUnused() {
        Needs.platform("the process-wide counters unused by other tests", !CountersManager.isSharedInUse(),
            "they are in use: not made here");
    }

    @AfterEach
    void restoreDirectory() {
        if (directoryBefore == null) {
            System.clearProperty(CountersManager.DIRECTORY_PROPERTY);
        } else {
            System.setProperty(CountersManager.DIRECTORY_PROPERTY, directoryBefore);
        }
    }

    /** Starts the process-wide counters twice in the directory; answers what standard error said. */
    private static String startTwiceIn(final Path directory) {
        System.setProperty(CountersManager.DIRECTORY_PROPERTY, directory.toString());
        final PrintStream before = System.err;
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            for (int start = 0; start < 2; start++) {
                final CountersManager manager = CountersManager.acquireShared();
                try {
                    assertThat(manager.file()).as("runs without a counters file").isNull();
                    assertThat(manager.allocate(CounterTypes.UDP_DROPS, "still counts")).isNotNull();
                } finally {
                    manager.close();
                }
            }
        } finally {
            System.setErr(before);
        }
        return err.toString(StandardCharsets.UTF_8);
    }

    /** An empty counters file of a pid that runs nothing: what removeDead removes from a directory it trusts. */
    private static Path plant(final Path directory) throws Exception {
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        return Files.createFile(directory.resolve(gone.pid() + CountersManager.FILE_SUFFIX));
    }

    private static List<Path> contents(final Path directory) throws Exception {
        try (Stream<Path> files = Files.list(directory)) {
            return files.toList();
        }
    }

    @Test
    void shouldRefuseADirectoryOthersMayWriteToAndCleanNothingThere() throws Exception {
        final Path open = Files.createDirectory(dir.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        final Path planted = plant(open);

        assertThat(CountersDirectory.refusal(open)).isEqualTo("has mode 0777, not 0700");
        assertThat(startTwiceIn(open).lines().toList()).as("said once").containsExactly("peregrine: counters directory "
            + open + " refused: it has mode 0777, not 0700; this process runs without a counters file"
            + " (./peregrine stat will not list it)");
        assertThat(CountersDirectory.removeDead(open)).isEmpty();
        assertThat(contents(open)).containsExactly(planted);
    }

    @Test
    void shouldRefuseASymbolicLinkAsTheDirectory() throws Exception {
        final Path real = Files.createDirectory(dir.resolve("real"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        final Path link = Files.createSymbolicLink(dir.resolve("link"), real);

        assertThat(CountersDirectory.refusal(real)).as("the directory itself is fine").isNull();
        assertThat(CountersDirectory.refusal(link)).isEqualTo("is a symbolic link");
        assertThat(startTwiceIn(link).lines().toList()).as("said once").hasSize(1).first().asString()
            .contains("counters directory " + link + " refused: it is a symbolic link");
        assertThat(contents(real)).isEmpty();
    }

    @Test
    void shouldRefuseADirectoryOwnedByAnotherUser() throws Exception {
        Needs.privilege("root", FileLocks.effectiveUid() == 0, "only root can give a directory to uid 65534");
        final Path theirs = Files.createDirectory(dir.resolve("theirs"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.setAttribute(theirs, "unix:uid", 65534, LinkOption.NOFOLLOW_LINKS);
        final Path planted = plant(theirs);

        assertThat(CountersDirectory.refusal(theirs)).isEqualTo("is owned by uid 65534, not by this process's uid 0");
        assertThat(startTwiceIn(theirs).lines().toList()).as("said once").hasSize(1).first().asString()
            .contains("counters directory " + theirs + " refused: it is owned by uid 65534");
        assertThat(CountersDirectory.removeDead(theirs)).isEmpty();
        assertThat(contents(theirs)).containsExactly(planted);
    }

    @Test
    void shouldMakeAMissingDirectoryWithMode0700AndUseIt() throws Exception {
        final Path made = dir.resolve("parent").resolve("counters");
        System.setProperty(CountersManager.DIRECTORY_PROPERTY, made.toString());
        final CountersManager manager = CountersManager.acquireShared();
        try {
            assertThat(manager.file()).isNotNull().hasParent(made).exists();
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(made, LinkOption.NOFOLLOW_LINKS)))
                .isEqualTo("rwx------");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(manager.file()))).isEqualTo("rw-------");
        } finally {
            manager.close();
        }
    }
}
