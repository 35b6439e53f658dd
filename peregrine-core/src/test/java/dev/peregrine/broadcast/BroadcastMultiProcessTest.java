package dev.peregrine.broadcast;

import dev.peregrine.internal.FileLocks;
import dev.peregrine.testkit.Needs;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Readers in child JVMs: every one reads exactly the written sequence; a reader killed with -9 is evicted. */
@Tag("slow")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BroadcastMultiProcessTest {
    @TempDir
    Path temp;

    private final List<Process> children = new ArrayList<>();

    @BeforeEach
    void needsLocks() {
        Needs.platform("flock through FFM", FileLocks.isAvailable(), FileLocks.unavailableReason());
    }

    private Path dir() {
        return temp.resolve("logs");
    }

    private Process start(final String log, final String name, final long count, final String mode)
        throws IOException {
        return startMain(BroadcastReaderProcess.class, dir().toString(), log, name, Long.toString(count), mode);
    }

    private Process startMain(final Class<?> main, final String... args) throws IOException {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElseThrow());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("-XX:AutoBoxCacheMax=65536"); // as the launcher: SelectorBoxing
        command.add("-Xmx64m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(List.of(args));
        final Process child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        children.add(child);
        return child;
    }

    private static BufferedReader out(final Process child) {
        return new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
    }

    private static int offerUntilTaken(final BroadcastWriter writer, final MemorySegment record, final long value,
        final long deadlineNs) throws InterruptedException {
        record.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        int outcome;
        while ((outcome = writer.offer(record, 0, 16)) == BroadcastWriter.BACK_PRESSURED) {
            if (System.nanoTime() > deadlineNs) {
                return outcome;
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        return outcome;
    }

    @Test
    void shouldGiveEveryReaderProcessExactlyTheWrittenSequenceInOrder() throws Exception {
        final long count = 30_000;
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "fan",
            BroadcastLogOptions.of(256, 16, 4, BroadcastPolicy.BLOCK))) {
            final List<BufferedReader> outs = new ArrayList<>();
            for (final String mode : List.of("futex", "backoff", "futex")) {
                final Process child = start("fan", "child-" + outs.size(), count, mode);
                final BufferedReader out = out(child);
                assertThat(out.readLine()).startsWith("ready ");
                outs.add(out);
            }
            final MemorySegment record = MemorySegment.ofArray(new byte[16]);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            for (long i = 0; i < count; i++) {
                assertThat(offerUntilTaken(writer, record, i, deadline)).as("record " + i)
                    .isEqualTo(BroadcastWriter.OFFERED);
            }
            for (final BufferedReader out : outs) {
                assertThat(out.readLine()).isEqualTo("ok " + count + " 0");
            }
            assertThat(writer.evictions()).isZero();
        } finally {
            children.forEach(Process::destroyForcibly);
        }
    }

    @Test
    void shouldEvictAReaderKilledWithSigkillAndLetTheOthersLoseNothing() throws Exception {
        final long count = 2_000;
        try (BroadcastWriter writer = BroadcastWriter.create(dir(), "kill",
            BroadcastLogOptions.of(64, 16, 4, BroadcastPolicy.BLOCK));
             BroadcastReader survivor = BroadcastReader.attach(dir(), "kill", "survivor", BroadcastStart.LIVE)) {
            final Process stalled = start("kill", "stalled", count, "stall");
            assertThat(out(stalled).readLine()).startsWith("ready ");
            final RecordingHandler events = new RecordingHandler();
            final MemorySegment record = MemorySegment.ofArray(new byte[16]);
            long written = 0;
            // fill the ring: the stalled reader holds the writer back from here on
            while (written < 64) {
                record.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, written);
                assertThat(writer.offer(record, 0, 16)).isEqualTo(BroadcastWriter.OFFERED);
                written++;
                survivor.poll(events, 16);
            }
            survivor.poll(events, 64);
            record.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, written);
            assertThat(writer.offer(record, 0, 16)).as("held back by the stalled reader")
                .isEqualTo(BroadcastWriter.BACK_PRESSURED);
            assertThat(writer.evictions()).isZero();
            stalled.destroyForcibly(); // SIGKILL: nothing of the child's runs
            stalled.waitFor();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (written < count) {
                assertThat(offerUntilTaken(writer, record, written, deadline)).isEqualTo(BroadcastWriter.OFFERED);
                written++;
                survivor.poll(events, 16);
            }
            while (survivor.poll(events, 256) > 0) {
                // drain
            }
            assertThat(writer.evictions()).isEqualTo(1);
            assertThat(events.values).hasSize((int)count);
            for (int i = 0; i < count; i++) {
                assertThat(events.values.get(i)).isEqualTo(i);
            }
            assertThat(events.events).doesNotContain("evicted", "lapped");
        } finally {
            children.forEach(Process::destroyForcibly);
        }
    }

    @Test
    void shouldTellReadersAWriterKilledWithSigkillIsGoneAndLetANewOneGoOn() throws Exception {
        BroadcastWriter.create(dir(), "handover", BroadcastLogOptions.of(64, 16, 2, BroadcastPolicy.DROP)).close();
        try (BroadcastReader reader = BroadcastReader.attach(dir(), "handover", "r", BroadcastStart.OLDEST)) {
            final RecordingHandler events = new RecordingHandler();
            reader.poll(events, 10);
            assertThat(events.take()).as("the creator closed: an orderly close is told")
                .containsExactly("joined 0", "writer gone closed");
            final Process writer = startMain(BroadcastWriterProcess.class, dir().toString(), "handover", "10");
            assertThat(out(writer).readLine()).isEqualTo("written 10");
            assertThat(reader.poll(events, 100)).isEqualTo(10);
            writer.destroyForcibly(); // SIGKILL: the writer state stays ACTIVE, only its lock goes
            writer.waitFor();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!events.events.contains("writer gone died (its lock was free)") && System.nanoTime() < deadline) {
                reader.poll(events, 100);
                Thread.sleep(5);
            }
            assertThat(events.events).endsWith("writer gone died (its lock was free)");
            try (BroadcastWriter next = BroadcastWriter.open(dir(), "handover")) {
                assertThat(next.position()).isEqualTo(10);
                assertThat(next.offer(new byte[8], 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
                assertThat(reader.poll(events, 100)).isEqualTo(1);
            }
            assertThat(reader.missed()).isZero();
        } finally {
            children.forEach(Process::destroyForcibly);
        }
    }
}
