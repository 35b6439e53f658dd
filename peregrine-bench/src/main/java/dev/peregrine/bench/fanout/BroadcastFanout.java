package dev.peregrine.bench.fanout;

import dev.peregrine.broadcast.BroadcastBlockingReader;
import dev.peregrine.broadcast.BroadcastHandler;
import dev.peregrine.broadcast.BroadcastLogOptions;
import dev.peregrine.broadcast.BroadcastPolicy;
import dev.peregrine.broadcast.BroadcastReader;
import dev.peregrine.broadcast.BroadcastStart;
import dev.peregrine.broadcast.BroadcastWait;
import dev.peregrine.broadcast.BroadcastWriter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;

/**
 * Peregrine's broadcast log ({@code dev.peregrine.broadcast}): one log, every reader attached to it by name; readers
 * of a latency run wait by futex ({@link BroadcastWait#FUTEX}: 100 polls, 10 yields, parks for up to 100 µs, then a sleep the
 * writer's one {@code FUTEX_WAKE} ends), readers of a throughput run back off as Aeron's subscribers do
 * ({@link #waitFor}).
 */
final class BroadcastFanout implements FanoutTransport {
    /** The log's name in the run's directory. */
    static final String LOG_NAME = "fanout";
    private static final long LONGEST_WAIT_NS = 1_000_000L;

    private final BroadcastPolicy policy;
    private final int records;

    BroadcastFanout(final BroadcastPolicy policy) {
        this(policy, FanoutTransports.DEFAULT_RECORDS);
    }

    BroadcastFanout(final BroadcastPolicy policy, final int records) {
        this.policy = policy;
        this.records = records;
    }

    @Override
    public String name() {
        return policy == BroadcastPolicy.BLOCK ? "peregrine-broadcast" : "peregrine-broadcast-drop";
    }

    @Override
    public int maxReaders() {
        return 64;
    }

    @Override
    public boolean dropsWhenBehind() {
        return policy == BroadcastPolicy.DROP;
    }

    @Override
    public List<String> jvmArguments() {
        return List.of();
    }

    @Override
    public String describe() {
        return name() + ": BroadcastWriter/BroadcastReader, policy " + policy + ", " + (records
            == FanoutTransports.DEFAULT_RECORDS ? "as many records as fill Aeron IPC's producer window (half its 4 MiB"
            + " term: 32768 at 32 B)" : records + " records") + ", readers"
            + " wait by futex in latency runs (BroadcastWait.FUTEX: 100 polls, 10 yields, parks for up to 100 us, then asleep"
            + " until the writer's FUTEX_WAKE, one per request, not per record) and back off in throughput runs as"
            + " Aeron's subscribers do (BroadcastWait.BACKOFF: 100 spins, 10 yields, park 1 us to 1 ms), polls of up"
            + " to " + LATENCY_POLL_LIMIT + " (" + THROUGHPUT_POLL_LIMIT + " in throughput runs)";
    }

    @Override
    public Writer openWriter(final Path directory, final int size, final int readers) {
        final BroadcastWriter writer = BroadcastWriter.create(directory, LOG_NAME,
            BroadcastLogOptions.of(records == FanoutTransports.DEFAULT_RECORDS ? FanoutTransports.recordsLikeAeron(size)
                : records, size, Math.max(2, readers + 1), policy));
        return new Writer() {
            private final MemorySegment buffer = Arena.ofAuto().allocate(FanoutMessage.MAX_SIZE, 64);

            @Override
            public MemorySegment buffer() {
                return buffer;
            }

            @Override
            public boolean offer(final int length) {
                return writer.offer(buffer, 0, length) == BroadcastWriter.OFFERED;
            }

            @Override
            public long evictions() {
                return writer.evictions();
            }

            @Override
            public void close() {
                writer.close();
            }
        };
    }

    /**
     * How a reader waits: by futex in a latency run; in a throughput run with Aeron's subscribers' back-off, so that
     * the throughput row compares the logs and not two ways of waiting. A futex reader that catches up with the writer
     * yields, then sleeps and costs the writer a {@code FUTEX_WAKE}; a parked one costs it nothing (on a loaded 2-vCPU
     * machine, broadcast/Aeron per round 0.46-0.77 with futex against 0.47-1.36 backing off: docs/broadcast-bcast8.md).
     *
     * @param pollLimit {@link #THROUGHPUT_POLL_LIMIT} in a throughput run, else a latency run
     * @return the wait
     */
    static BroadcastWait waitFor(final int pollLimit) {
        return pollLimit == THROUGHPUT_POLL_LIMIT ? BroadcastWait.BACKOFF : BroadcastWait.FUTEX;
    }

    @Override
    public Reader attach(final Path directory, final int size, final int index, final int pollLimit,
                         final Sink sink) {
        final BroadcastReader reader = BroadcastReader.attach(directory, LOG_NAME, "reader-" + index,
            BroadcastStart.LIVE);
        final BroadcastBlockingReader blocking = new BroadcastBlockingReader(reader, waitFor(pollLimit),
            LONGEST_WAIT_NS);
        final BroadcastHandler handler = (buffer, offset, length, position) ->
            sink.onMessage(FanoutMessage.sequence(buffer, offset), FanoutMessage.sendNs(buffer, offset));
        return new Reader() {
            @Override
            public int read() {
                return blocking.read(handler, pollLimit, LONGEST_WAIT_NS);
            }

            @Override
            public String failure() {
                return reader.failure();
            }

            @Override
            public void close() {
                blocking.close();
            }
        };
    }
}
