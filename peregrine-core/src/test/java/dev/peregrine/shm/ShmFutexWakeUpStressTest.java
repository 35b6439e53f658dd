package dev.peregrine.shm;

import dev.peregrine.testkit.Needs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hunts lost futex wake-ups without measuring time: a responder sleeps on the futex with a 60 s timeout, so a
 * single lost wake-up stalls it far past the whole test's {@link Timeout}. The pinger spins for each reply and
 * commits the next ping at once (after a random short spin), so commits keep landing right when the responder
 * announces its sleep and re-checks the ring, the window in which a wake-up can be lost.
 */
class ShmFutexWakeUpStressTest {
    private static final int SESSIONS = 100;
    private static final int ROUNDS_PER_SESSION = 200;
    private static final long SLEEP_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);

    @Test
    @Timeout(value = 40, unit = TimeUnit.SECONDS)
    void shouldNeverLoseAWakeUpWhenCommitsRaceTheReaderFallingAsleep() throws Exception {
        Needs.platform("a futex", ShmFutex::unavailableReason);
        final SplittableRandom random = new SplittableRandom(42);
        final long[] committedToASleeper = {0};
        long echoed = 0;
        // fresh rings and strategies per session: each session also covers a reader's first announcement
        for (int session = 0; session < SESSIONS; session++) {
            echoed += runSession(random, committedToASleeper);
        }
        assertThat(echoed).isEqualTo((long)SESSIONS * ROUNDS_PER_SESSION);
        // not vacuous: the responder really was asleep (or falling asleep) on the futex when pings came
        assertThat(committedToASleeper[0]).isPositive();
    }

    private static long runSession(final SplittableRandom random, final long[] committedToASleeper) throws Exception {
        try (Arena arena = Arena.ofShared()) {
            final MemorySegment pingRing = newRing(arena);
            final MemorySegment pongRing = newRing(arena);
            final ShmRingWriter pingWriter = new ShmRingWriter(pingRing);
            final ShmRingReader pongReader = new ShmRingReader(pongRing);
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final Thread responder = new Thread(() -> respond(pingRing, pongRing, failure), "futex-responder");
            responder.setDaemon(true); // a lost wake-up leaves it asleep; it must not keep the JVM alive
            responder.start();
            final long[] reply = {-1};
            final ShmMessageHandler onReply = (buffer, offset, length) -> reply[0] = buffer.get(ValueLayout.JAVA_LONG, offset);
            for (long round = 0; round < ROUNDS_PER_SESSION; round++) {
                final int spins = random.nextInt(2_000);
                for (int i = 0; i < spins; i++) {
                    Thread.onSpinWait();
                }
                final long index = pingWriter.tryClaim(Long.BYTES);
                assertThat(index).isNotNegative();
                pingWriter.buffer().set(ValueLayout.JAVA_LONG, index, round);
                if (pingRing.get(ValueLayout.JAVA_INT, ShmRingDescriptor.FUTEX_OFFSET) == ShmRingDescriptor.FUTEX_SLEEPING) {
                    committedToASleeper[0]++;
                }
                pingWriter.commit(index);
                reply[0] = -1;
                while (pongReader.poll(onReply, 1) == 0) {
                    if (Thread.currentThread().isInterrupted() || failure.get() != null) {
                        throw new AssertionError("no reply to round=" + round + " (lost wake-up?)", failure.get());
                    }
                    Thread.onSpinWait();
                }
                assertThat(reply[0]).isEqualTo(round);
            }
            responder.join();
            assertThat(failure.get()).isNull();
            return ROUNDS_PER_SESSION;
        }
    }

    private static void respond(final MemorySegment pingRing, final MemorySegment pongRing,
        final AtomicReference<Throwable> failure) {
        try {
            final ShmRingReader reader = new ShmRingReader(pingRing);
            final ShmRingWriter writer = new ShmRingWriter(pongRing);
            final ShmWaitStrategy wait = new ShmFutexWait(0);
            final long[] received = {0};
            final ShmMessageHandler echo = (buffer, offset, length) -> {
                final long index = writer.tryClaim(length);
                if (index < 0) {
                    throw new IllegalStateException("pong ring full: index=" + index);
                }
                MemorySegment.copy(buffer, offset, writer.buffer(), index, length);
                writer.commit(index);
                received[0]++;
            };
            while (received[0] < ROUNDS_PER_SESSION) {
                final int work = reader.poll(echo, 16);
                if (work < 0) {
                    throw new IllegalStateException("ping ring corrupt: " + reader.corruption());
                }
                wait.idle(reader, work, SLEEP_TIMEOUT_NS);
            }
        } catch (final Throwable ex) {
            failure.set(ex);
        }
    }

    private static MemorySegment newRing(final Arena arena) {
        final MemorySegment segment = arena.allocate(ShmRingDescriptor.fileLength(ShmRingDescriptor.MIN_CAPACITY), 4096);
        ShmRingDescriptor.initialise(segment, ShmRingDescriptor.MIN_CAPACITY, 64, 16);
        return segment;
    }
}
