package dev.peregrine.bench.fanout;

import dev.peregrine.broadcast.BroadcastPolicy;

import java.util.List;

/** The transports {@code bench fanout} knows, and the one it does not run, with the reason. */
public final class FanoutTransports {
    /** Records a broadcast log holds in the table's runs unless {@code --records} says otherwise. */
    public static final int DEFAULT_RECORDS = 16_384;
    /**
     * Records a broadcast log holds in the {@code --stop-reader} scenario unless {@code --records} says otherwise:
     * 655 ms at 100 000 msg/s, four times the 160 ms a reader was seen descheduled behind on 2 vCPUs, and less than
     * the second the stopped reader misses, so it is lapped.
     */
    public static final int STOP_READER_RECORDS = 65_536;
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
     * @param records the broadcast logs' capacity, a power of two (the readers take it from the file)
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
