package dev.peregrine.broadcast;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Attaching runs the idle check's probes {@link WriterWatch#PRIMES} times, so that the JIT compiles
 * them then and not some 10 s later in the middle of a read (issue 33, bcast16), and the probes have no effect: a
 * writer found gone is still told at the first check after attaching, once, and attaching stops probing at it.
 */
class BroadcastIdleCheckPrimeTest {
    @TempDir
    Path temp;

    @Test
    void shouldRunTheIdleChecksProbesAtAttachBeforeAnyPoll() {
        final Path dir = temp.resolve("logs");
        try (BroadcastWriter writer = BroadcastWriter.create(dir, "primed",
                BroadcastLogOptions.of(64, 16, 2, BroadcastPolicy.DROP));
             BroadcastReader reader = BroadcastReader.attach(dir, "primed", "r", BroadcastStart.LIVE)) {
            assertThat(reader.writerProbes()).as("probes run by attaching").isEqualTo(WriterWatch.PRIMES);
            assertThat(reader.writerChecks()).as("checks made by polls").isZero();

            reader.writerCheckIntervalNs(0);
            final RecordingHandler events = new RecordingHandler();
            reader.poll(events, 16);

            assertThat(reader.writerProbes()).as("one more: the idle poll's check")
                .isEqualTo(WriterWatch.PRIMES + 1L);
            assertThat(events.take()).as("a live writer: nothing to tell but the join").containsExactly("joined 0");
            assertThat(writer.position()).isZero();
        }
    }

    @Test
    void shouldTellAWriterThatClosedBeforeAttachAtTheFirstCheckOnce() {
        final Path dir = temp.resolve("logs");
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment payload = arena.allocate(8, 8);
            try (BroadcastWriter writer = BroadcastWriter.create(dir, "closed",
                    BroadcastLogOptions.of(64, 16, 2, BroadcastPolicy.DROP))) {
                assertThat(writer.offer(payload, 0, 8)).isEqualTo(BroadcastWriter.OFFERED);
            }
            try (BroadcastReader reader = BroadcastReader.attach(dir, "closed", "r", BroadcastStart.OLDEST)) {
                reader.writerCheckIntervalNs(0);
                final RecordingHandler events = new RecordingHandler();
                reader.poll(events, 16); // the record
                reader.poll(events, 16); // idle: the check
                reader.poll(events, 16); // idle again: told once only

                assertThat(events.take()).containsExactly("joined 0", "r 0 0", "writer gone closed");
                assertThat(reader.isWriterGone()).isTrue();
                assertThat(reader.writerProbes()).as("attaching stopped at its first probe, which found the writer gone;"
                    + " then the two idle polls'").isEqualTo(3);
            }
        }
    }
}
