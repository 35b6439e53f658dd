package dev.peregrine.mold;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One store at a time per file: a second store of the same file, in this process or another, is refused as in use
 * while the first is open, and takes the file once it is closed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MoldUDP64StoreLockTest {
    @TempDir
    Path dir;

    private static final MemorySegment MESSAGE = MemorySegment.ofArray(new byte[] {1, 2, 3});

    @Test
    void shouldRefuseASecondStoreOfThisProcessOnTheSameFileUntilTheFirstCloses() {
        final Path file = dir.resolve("feed.store");
        try (MoldUDP64MessageStore first = MoldUDP64MessageStore.mapped(file, "FEED", 64, 1 << 16)) {
            first.append(MESSAGE, 0, 3);
            assertThatThrownBy(() -> MoldUDP64MessageStore.mapped(file, "FEED", 64, 1 << 16).close())
                .isInstanceOf(UncheckedIOException.class).hasMessageContaining("file=" + file)
                .hasMessageContaining("in use by another message store of this process");
            assertThatThrownBy(() -> MoldUDP64MessageStore.mapped(dir.resolve(".").resolve("feed.store"), null, 64,
                1 << 16).close()).as("named another way").hasMessageContaining("in use");
            assertThat(first.append(MESSAGE, 0, 3)).as("the first goes on").isEqualTo(2);
        }
        try (MoldUDP64MessageStore again = MoldUDP64MessageStore.mapped(file, "FEED", 64, 1 << 16)) {
            assertThat(again.nextSequence()).as("the file is free once the first closed").isEqualTo(3);
        }
    }

    @Test
    void shouldLetTheFileGoWhenAStoreIsRefusedForDamage() throws Exception {
        final Path file = Files.writeString(dir.resolve("notes.txt"), "not a store\n".repeat(20));
        assertThatThrownBy(() -> MoldUDP64MessageStore.mapped(file, "FEED", 64, 1 << 16).close())
            .hasMessageContaining("not a MoldUDP64 message store");
        assertThatThrownBy(() -> MoldUDP64MessageStore.mapped(file, "FEED", 64, 1 << 16).close())
            .as("refused for what it holds again, not as in use").hasMessageContaining("not a MoldUDP64 message store");
    }

    /**
     * The lock is a POSIX record lock, which any close of a descriptor of the file in this process drops: a second
     * store of this process that opened the file and closed it on refusal would free it for every other process.
     */
    @Tag("slow")
    @Test
    void shouldRefuseAStoreOfAnotherProcessAlsoAfterASecondStoreOfThisOneWasRefused() throws Exception {
        final Path file = dir.resolve("shared.store");
        try (MoldUDP64MessageStore first = MoldUDP64MessageStore.mapped(file, "FEED", 64, 1 << 16)) {
            first.append(MESSAGE, 0, 3);
            assertThat(openInAnotherProcess(file)).startsWith("refused: cannot map message store file=" + file)
                .contains("in use by another process");
            assertThatThrownBy(() -> MoldUDP64MessageStore.mapped(file, "FEED", 64, 1 << 16).close())
                .hasMessageContaining("in use");
            assertThat(openInAnotherProcess(file)).as("after this process refused a second store")
                .contains("in use by another process");
        }
        assertThat(openInAnotherProcess(file)).as("once the store closed").isEqualTo("opened at 2");
    }

    /**
     * {@code refusalOf} says "in use" of a file a store holds, and asking it must not drop the lock: it reads the
     * file, and a close of any descriptor of the file in this process would free it for every other process.
     */
    @Tag("slow")
    @Test
    void shouldSayInUseOfAHeldFileWithoutLettingItGo() throws Exception {
        final Path file = dir.resolve("asked.store");
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.mapped(file, "FEED", 64, 1 << 16)) {
            store.append(MESSAGE, 0, 3);

            assertThat(MoldUDP64MessageStore.refusalOf(file)).isEqualTo(
                "in use by another message store of this process; one store per file");
            assertThat(runInAnotherProcess("refusal", file.toString())).as("asked by another process")
                .isEqualTo("refusal: in use by another process, which holds its lock; one store per file");
            assertThat(openInAnotherProcess(file)).as("after this process asked").contains("in use by another process");
        }
        assertThat(MoldUDP64MessageStore.refusalOf(file)).as("once the store closed").isNull();
        assertThat(runInAnotherProcess("refusal", file.toString())).isEqualTo("refusal: none");
    }

    private static String openInAnotherProcess(final Path file) throws IOException, InterruptedException {
        return runInAnotherProcess(file.toString());
    }

    private static String runInAnotherProcess(final String... args) throws IOException, InterruptedException {
        final List<String> command = new java.util.ArrayList<>(List.of(ProcessHandle.current().info().command()
            .orElseThrow(), "--enable-native-access=ALL-UNNAMED", "-XX:AutoBoxCacheMax=65536",
            "-cp", System.getProperty("java.class.path"),
            MoldUDP64StoreProcess.class.getName()));
        command.addAll(List.of(args));
        final Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("child exits").isTrue();
        assertThat(process.exitValue()).as("child's exit, output: %s", output).isZero();
        return output;
    }
}
