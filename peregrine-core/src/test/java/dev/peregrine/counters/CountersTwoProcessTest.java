package dev.peregrine.counters;

import dev.peregrine.internal.FileLocks;
import dev.peregrine.testkit.Needs;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A second JVM reads the counters of a running first one, and recognises and cleans a crashed one's file. */
@Tag("slow")
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class CountersTwoProcessTest {
    @TempDir
    Path dir;

    private Process startPeer(final String... args) throws IOException {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElseThrow());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("-XX:AutoBoxCacheMax=65536"); // as the launcher: SelectorBoxing
        command.add("-D" + CountersManager.DIRECTORY_PROPERTY + "=" + dir);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(CountersPeerProcess.class.getName());
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    private static Path awaitReady(final Process peer) throws IOException {
        final BufferedReader out = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
        final String line = out.readLine();
        assertThat(line).as("the peer's first line").startsWith("ready ");
        return Path.of(line.substring("ready ".length()));
    }

    private static long dutyCycles(final CountersReader reader) {
        final long[] found = {-1};
        reader.forEach((id, typeId, label, value) -> {
            if (typeId == CounterTypes.REACTOR_DUTY_CYCLES && label.equals("reactor=counters-peer")) {
                found[0] = value;
            }
        });
        return found[0];
    }

    @Test
    void shouldReadTheCountersOfARunningProcessAndSeeThemMove() throws Exception {
        final Process peer = startPeer();
        try {
            final Path file = awaitReady(peer);
            assertThat(file.getParent()).isEqualTo(dir);
            assertThat(CountersDirectory.pidOf(file)).isEqualTo(peer.pid());
            assertThat(CountersDirectory.fileOf(dir, peer.pid())).isEqualTo(file);
            try (CountersReader reader = CountersReader.open(file)) {
                assertThat(reader.pid()).isEqualTo(peer.pid());
                assertThat(reader.isOwnerAlive()).isTrue();
                assertThat(reader.processName()).contains(CountersPeerProcess.class.getName());
                final long first = dutyCycles(reader);
                assertThat(first).as("the peer's reactor's duty cycles").isGreaterThanOrEqualTo(0);
                long later = first;
                for (int i = 0; i < 2_000 && later == first; i++) {
                    Thread.sleep(5);
                    later = dutyCycles(reader);
                }
                assertThat(later).as("duty cycles read again").isGreaterThan(first);
            }
            peer.getOutputStream().write('q'); // an orderly close: the last reactor removes the file
            peer.getOutputStream().flush();
            assertThat(peer.waitFor()).isZero();
            assertThat(file).doesNotExist();
        } finally {
            peer.destroyForcibly();
        }
    }

    @Test
    void shouldRecogniseAndRemoveTheFileOfAKilledProcess() throws Exception {
        final Process peer = startPeer();
        final Path file;
        try {
            file = awaitReady(peer);
        } finally {
            peer.destroyForcibly(); // SIGKILL: no shutdown hook runs
        }
        peer.waitFor();
        assertThat(file).as("a killed process leaves its file").exists();
        try (CountersReader reader = CountersReader.open(file)) {
            assertThat(reader.isOwnerAlive()).isFalse();
        }
        final Path stranger = dir.resolve("notes.txt");
        Files.writeString(stranger, "not a counters file");
        assertThat(CountersDirectory.removeDead(dir)).containsExactly(file);
        assertThat(file).doesNotExist();
        assertThat(stranger).exists();
    }

    /**
     * A process whose pid means nothing here (another pid namespace's) is alive while it holds its file's lock, and
     * dead once killed: the lock, which the kernel lets go with the process, decides, not the pid.
     */
    @Test
    void shouldJudgeAProcessAliveByTheLockItHoldsAndDeadOnceKilledWhateverItsPid() throws Exception {
        Needs.platform("flock through FFM", FileLocks.isAvailable(), FileLocks.unavailableReason());
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        final Process peer = startPeer(Long.toString(gone.pid()));
        final Path file;
        try {
            file = awaitReady(peer);
            try (CountersReader reader = CountersReader.open(file)) {
                assertThat(reader.pid()).as("a pid that runs nothing here").isEqualTo(gone.pid());
                assertThat(reader.isOwnerAlive()).as("the peer holds its lock").isTrue();
            }
            assertThat(CountersDirectory.removeDead(dir)).as("what the next start does while the peer runs").isEmpty();
            assertThat(file).exists();
        } finally {
            peer.destroyForcibly(); // SIGKILL: no shutdown hook runs, the kernel lets the lock go
        }
        peer.waitFor();
        assertThat(file).as("a killed process leaves its file").exists();
        try (CountersReader reader = CountersReader.open(file)) {
            assertThat(reader.isOwnerAlive()).isFalse();
        }
        assertThat(CountersDirectory.removeDead(dir)).as("what the next start does").containsExactly(file);
        assertThat(file).doesNotExist();
    }
}
