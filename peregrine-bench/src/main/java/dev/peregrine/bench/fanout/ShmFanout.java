package dev.peregrine.bench.fanout;

import dev.peregrine.broadcast.BroadcastBlockingReader;
import dev.peregrine.shm.ShmFutexWait;
import dev.peregrine.shm.ShmMessageHandler;
import dev.peregrine.shm.ShmRingDescriptor;
import dev.peregrine.shm.ShmRingFile;
import dev.peregrine.shm.ShmRingReader;
import dev.peregrine.shm.ShmRingWriter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;

/**
 * Peregrine's one-to-one shared-memory ring ({@code dev.peregrine.shm}), one reader only: the reference the broadcast
 * log's one-reader target is measured against. The reader waits as the broadcast readers do: 100 polls, 10 yields,
 * parks for up to 100 µs, then futex ({@link ShmFutexWait}).
 */
final class ShmFanout implements FanoutTransport {
    /** Bytes of ring. */
    static final int CAPACITY = 4 * 1024 * 1024;
    private static final String FILE_NAME = "ring";
    private static final int MAX_IN_FLIGHT = 1 << 20;
    private static final long LONGEST_WAIT_NS = 1_000_000L;

    @Override
    public String name() {
        return "peregrine-shm";
    }

    @Override
    public int maxReaders() {
        return 1;
    }

    @Override
    public boolean dropsWhenBehind() {
        return false;
    }

    @Override
    public List<String> jvmArguments() {
        return List.of();
    }

    @Override
    public String describe() {
        return name() + ": one ShmRingWriter to one ShmRingReader (" + CAPACITY / (1024 * 1024) + " MiB ring), the"
            + " one-to-one ring, 1 reader only; the reader waits as the broadcast readers do (100 polls, 10 yields, parks for up to 100 us, then asleep on ShmFutexWait)";
    }

    @Override
    public Writer openWriter(final Path directory, final int size, final int readers) {
        final Arena arena = Arena.ofShared();
        final ShmRingWriter writer;
        try {
            writer = new ShmRingWriter(ShmRingFile.create(directory.resolve(FILE_NAME), CAPACITY, size, MAX_IN_FLIGHT,
                ShmRingDescriptor.MIN_ALIGNMENT, arena));
        } catch (final RuntimeException ex) {
            arena.close();
            throw ex;
        }
        return new Writer() {
            private final MemorySegment buffer = Arena.ofAuto().allocate(FanoutMessage.MAX_SIZE, 64);

            @Override
            public MemorySegment buffer() {
                return buffer;
            }

            @Override
            public boolean offer(final int length) {
                return writer.offer(buffer, 0, length) >= 0;
            }

            @Override
            public void close() {
                writer.close();
                arena.close();
            }
        };
    }

    @Override
    public Reader attach(final Path directory, final int size, final int index, final int pollLimit,
                         final Sink sink) {
        final Arena arena = Arena.ofShared();
        final ShmRingReader reader;
        final ShmFutexWait wait;
        try {
            reader = new ShmRingReader(ShmRingFile.map(directory.resolve(FILE_NAME), CAPACITY, size, arena));
            // the broadcast readers' wait, from the same class: 100 polls, 10 yields, parks for up to 100 us, then asleep
            wait = new ShmFutexWait(BroadcastBlockingReader.FUTEX_SPINS, BroadcastBlockingReader.FUTEX_WINDOW_NS);
        } catch (final RuntimeException ex) {
            arena.close();
            throw ex;
        }
        final ShmMessageHandler handler = (buffer, offset, length) ->
            sink.onMessage(FanoutMessage.sequence(buffer, offset), FanoutMessage.sendNs(buffer, offset));
        return new Reader() {
            @Override
            public int read() {
                final int count = reader.poll(handler, pollLimit);
                wait.idle(reader, count, LONGEST_WAIT_NS);
                return Math.max(0, count);
            }

            @Override
            public String failure() {
                return reader.corruption();
            }

            @Override
            public void close() {
                arena.close();
            }
        };
    }
}
