package dev.peregrine.bench.fanout;

import dev.peregrine.broadcast.BroadcastDescriptor;
import dev.peregrine.broadcast.BroadcastPolicy;
import dev.peregrine.peers.aeron.AeronDriverSettings;

import java.util.List;

/** The transports {@code bench fanout} knows, and the one it does not run, with the reason. */
public final class FanoutTransports {
    /**
     * Records a broadcast log holds in the table's runs unless {@code --records} says otherwise: 0, meaning as many
     * as fill the room Aeron IPC's publication has ahead of its slowest subscriber ({@link #recordsLikeAeron}); it was
     * 16 384 (1 MiB at 32 B, half Aeron's room).
     */
    public static final int DEFAULT_RECORDS = 0;
    /**
     * Most records a broadcast log holds in the {@code --stop-reader} scenario unless {@code --records} says otherwise:
     * 655 ms at 100 000 msg/s, four times the 160 ms a reader was seen descheduled behind on 2 vCPUs.
     */
    public static final int STOP_READER_RECORDS = 65_536;
    /**
     * Readers of the {@code --stop-reader} scenario unless {@code --readers} says otherwise: reader 0, stopped or
     * detached, and three measured.
     */
    public static final int STOP_READER_READERS = 4;
    /**
     * The rate of the {@code --stop-reader} scenario unless {@code --rate} says otherwise: one the readers sustain on 2
     * vCPUs. At 100 000 msg/s records come 10 us apart, inside a futex reader's 100 us yield window, so every reader
     * yields without pause: four readers and the writer never leave the run queue, and the readers' p99 is the
     * scheduler's (35 ms with reader 0 detached, 12:44 sitting). At 2 000 msg/s (500 us apart) a reader yields 100
     * us, then sleeps until the writer's wake: a fifth of a core each, and the writer sleeps between sends.
     */
    public static final long STOP_READER_RATE = 2_000;
    /**
     * Measured seconds of the {@code --stop-reader} scenario unless {@code --seconds} says otherwise: 20 000 messages
     * at {@link #STOP_READER_RATE}, so that a p99 rests on 200 of them per reader.
     */
    public static final double STOP_READER_SECONDS = 10;
    /**
     * Warm-up seconds of the {@code --stop-reader} scenario unless {@code --warmup-seconds} says otherwise: 20 000
     * messages at {@link #STOP_READER_RATE}. At that rate a reader sleeps and is woken for nearly every record, so the
     * sleep and wake path (futex calls through FFM) runs once per message, and needs that many runs before the JIT has
     * compiled it to allocate nothing (a 1 000-message warm-up showed 20 B/msg on the readers, 4 on the writer).
     */
    public static final double STOP_READER_WARMUP_SECONDS = 10;

    /**
     * Records a broadcast log holds in the {@code --stop-reader} scenario unless {@code --records} says otherwise:
     * {@link #STOP_READER_RECORDS} at most, and few enough that the ring wraps in half the time the reader is stopped
     * (a quarter of the measured messages), so that the stopped reader is lapped and the writer shown not to wait.
     *
     * @param measured the measured messages (the reader is stopped for half of them)
     * @return a power of two, at least 64
     */
    public static int stopReaderRecords(final long measured) {
        return (int)Math.max(64, Math.min(STOP_READER_RECORDS, Long.highestOneBit(Math.max(1, measured / 4))));
    }

    /**
     * The records of a broadcast log holding what Aeron IPC's publication may write ahead of its slowest subscriber:
     * its producer window, half a term ({@link AeronDriverSettings#TERM_LENGTH} 4 MiB, so 2 MiB: Aeron's
     * {@code Configuration.producerWindowLength} with no window set), over the log's slot length for the size, to the
     * nearest power of two. At 32 B: 32 768 slots of 64 B, as Aeron's 64-byte frames. So both writers have the same
     * room before a slow reader holds them back.
     *
     * @param size the message size
     * @return a power of two
     */
    public static int recordsLikeAeron(final int size) {
        final int fit = Math.max(2, AeronDriverSettings.TERM_LENGTH / 2 / BroadcastDescriptor.slotLength(size));
        final int below = Integer.highestOneBit(fit);
        return fit - below >= below / 2 ? below * 2 : below;
    }

    /** The name of the Chronicle Queue row. */
    public static final String CHRONICLE = "chronicle-queue";
    /**
     * Why Chronicle Queue has no figures: found by running it once, as the issue asks (not a dependency of the
     * project).
     */
    public static final String CHRONICLE_REASON = "not run: net.openhft:chronicle-queue:2026.4 (the newest on Maven"
        + " Central) fails on JDK 25 without --add-opens: its first queue throws IllegalAccessException: class is not"
        + " public: sun.nio.ch.UnixFileDispatcherImpl.map0 from net.openhft.chronicle.core.OS (and jffi calls"
        + " sun.misc.Unsafe), which the project's rules forbid working around";

    private FanoutTransports() {
    }

    /**
     * Every transport that runs, in table order.
     *
     * @return the transports
     */
    public static List<FanoutTransport> all() {
        return all(DEFAULT_RECORDS);
    }

    /**
     * Every transport that runs, in table order, the broadcast logs holding a given number of records.
     *
     * @param records the broadcast logs' capacity, a power of two (the readers take it from the file), or
     *     {@link #DEFAULT_RECORDS} for {@link #recordsLikeAeron} at each size
     * @return the transports
     */
    public static List<FanoutTransport> all(final int records) {
        return List.of(new BroadcastFanout(BroadcastPolicy.BLOCK, records),
            new BroadcastFanout(BroadcastPolicy.DROP, records), new ShmFanout(), new AeronIpcFanout());
    }

    /**
     * Every name {@code --transport} accepts, Chronicle Queue's included.
     *
     * @return the names
     */
    public static List<String> names() {
        final List<String> names = new java.util.ArrayList<>(all().stream().map(FanoutTransport::name).toList());
        names.add(CHRONICLE);
        return List.copyOf(names);
    }

    /**
     * A transport by name.
     *
     * @param name one of {@link #names()} but {@link #CHRONICLE}
     * @return the transport
     * @throws IllegalArgumentException if there is none of that name
     */
    public static FanoutTransport byName(final String name) {
        return all().stream().filter(t -> t.name().equals(name)).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("transport=" + name + " is not a fan-out transport"));
    }
}
