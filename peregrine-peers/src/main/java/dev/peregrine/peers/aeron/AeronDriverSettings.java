package dev.peregrine.peers.aeron;

import dev.peregrine.peers.BenchConfig;
import io.aeron.Aeron;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.nio.file.Path;
import java.util.List;

/**
 * The one place where the Aeron peers are configured, so that what runs and what the report prints are the
 * same values.
 *
 * <p>The choices follow Aeron's low-latency samples ({@code LowLatencyMediaDriver}, the sample scripts) scaled
 * to a machine with two cores: one shared driver thread ({@link ThreadingMode#SHARED}) instead of three
 * dedicated ones, busy-spinning for UDP when the run spins (the driver carries every packet) and backing off
 * for IPC (the driver is not on the data path; see {@link #defaultDriverIdle}), terms pre-allocated ({@code termBufferSparseFile=false}),
 * 2 MiB socket buffers and receiver window for UDP, and terms of {@value #TERM_LENGTH} bytes so the window,
 * not the term, bounds a stream.
 */
public final class AeronDriverSettings {
    /** Client to responder. */
    public static final int PING_STREAM_ID = 1001;
    /** Responder to client. */
    public static final int PONG_STREAM_ID = 1002;
    /** The one-way throughput stream. */
    public static final int STREAM_STREAM_ID = 1003;
    /** Term length of every publication, IPC and UDP. */
    public static final int TERM_LENGTH = 4 * 1024 * 1024;
    /** Socket buffers and initial receiver window for UDP. */
    public static final int SOCKET_BUFFER_LENGTH = 2 * 1024 * 1024;
    /** How long a connect waits for the driver to connect both directions. */
    public static final long CONNECT_TIMEOUT_NS = 10_000_000_000L;

    /**
     * JVM options Aeron needs on JDK 25, found by running it: Agrona 2 ({@code org.agrona.UnsafeApi}) calls
     * {@code jdk.internal.misc.Unsafe} directly and fails to load without access to that package
     * ({@code IllegalAccessError ... does not export jdk.internal.misc to unnamed module}).
     */
    public static final List<String> JVM_ARGUMENTS = List.of("--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED");

    /** System property that overrides the driver's idle strategy: {@code spin}, {@code yield} or {@code backoff}. */
    public static final String DRIVER_IDLE_PROPERTY = "peregrine.aeron.driverIdle";

    private AeronDriverSettings() {
    }

    /**
     * The Aeron directory for a run.
     *
     * @param config the run's configuration
     * @return {@code config.directory()/aeron}
     */
    public static Path directory(final BenchConfig config) {
        return config.directory().resolve("aeron");
    }

    /**
     * A channel restricted to one session, so a subscription sees only that publisher's messages.
     *
     * @param channel an Aeron channel URI
     * @param sessionId the session
     * @return the channel with {@code session-id} added
     */
    public static String withSessionId(final String channel, final int sessionId) {
        return channel + (channel.indexOf('?') >= 0 ? "|" : "?") + "session-id=" + sessionId;
    }

    /**
     * The embedded driver's context.
     *
     * @param config the run's configuration
     * @param driverOnDataPath true for UDP, where the driver's thread sends and receives every packet; false for
     *     IPC, where publisher and subscriber share the log buffers directly and the driver only does housekeeping
     * @return the context, not yet launched
     */
    public static MediaDriver.Context driverContext(final BenchConfig config, final boolean driverOnDataPath) {
        return new MediaDriver.Context()
            .aeronDirectoryName(directory(config).toString())
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(driverIdleStrategy(config, driverOnDataPath))
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .termBufferSparseFile(false)
            .ipcTermBufferLength(TERM_LENGTH)
            .publicationTermBufferLength(TERM_LENGTH)
            .socketSndbufLength(SOCKET_BUFFER_LENGTH)
            .socketRcvbufLength(SOCKET_BUFFER_LENGTH)
            .initialWindowLength(SOCKET_BUFFER_LENGTH)
            .warnIfDirectoryExists(false);
    }

    /**
     * A client's context, connecting to the driver of this run.
     *
     * @param config the run's configuration
     * @return the context
     */
    public static Aeron.Context clientContext(final BenchConfig config) {
        return new Aeron.Context()
            .aeronDirectoryName(directory(config).toString())
            .idleStrategy(new SleepingMillisIdleStrategy(1));
    }

    private static IdleStrategy driverIdleStrategy(final BenchConfig config, final boolean driverOnDataPath) {
        final String chosen = System.getProperty(DRIVER_IDLE_PROPERTY, defaultDriverIdle(config.busySpin(), driverOnDataPath));
        return switch (chosen) {
            case "spin" -> new BusySpinIdleStrategy();
            case "yield" -> new YieldingIdleStrategy();
            case "backoff" -> new BackoffIdleStrategy();
            default -> throw new IllegalArgumentException(DRIVER_IDLE_PROPERTY + "=" + chosen + " (spin, yield or backoff)");
        };
    }

    /**
     * The driver's idle strategy unless overridden with {@value #DRIVER_IDLE_PROPERTY}.
     *
     * <p>UDP: busy spin when the run spins, as Aeron's low-latency samples do, because the driver's thread carries
     * every packet. IPC: back off (Aeron's own default for the shared agent) because the driver is not on the
     * data path; on a two-core machine a spinning driver would only take a core from the responder or client.
     */
    static String defaultDriverIdle(final boolean busySpin, final boolean driverOnDataPath) {
        return busySpin && driverOnDataPath ? "spin" : "backoff";
    }

    /**
     * The waiting strategy of a polling side (responder, client).
     *
     * @param config the run's configuration
     * @return busy spin or back-off
     */
    static IdleStrategy pollIdleStrategy(final BenchConfig config) {
        return config.busySpin() ? new BusySpinIdleStrategy() : new BackoffIdleStrategy();
    }

    /**
     * The configuration in words, for the report.
     *
     * @param driverOnDataPath as for {@link #driverContext}
     * @return one line
     */
    public static String describe(final boolean driverOnDataPath) {
        final int cores = Runtime.getRuntime().availableProcessors();
        return "embedded MediaDriver in <dir>/aeron, ThreadingMode.SHARED, sharedIdleStrategy="
            + (driverOnDataPath ? "BusySpin (Backoff when not busy-spinning)" : "Backoff (driver not on the IPC data path)")
            + " unless -D" + DRIVER_IDLE_PROPERTY + "=spin|yield|backoff, termBufferSparseFile=false, term length "
            + TERM_LENGTH / (1024 * 1024) + " MiB, "
            + (driverOnDataPath ? "so_sndbuf=so_rcvbuf=initial window " + SOCKET_BUFFER_LENGTH / (1024 * 1024)
                + " MiB, default MTU, " : "")
            + "dirDeleteOnStart/OnShutdown; the client side only connects to the responder's driver; streams "
            + PING_STREAM_ID + " (ping, an ExclusivePublication per client) and " + PONG_STREAM_ID
            + " (pong, one publication per ping session, session-id filtered), Publication.offer with back-pressure retry,"
            + " Subscription.poll with a stored FragmentAssembler, reused UnsafeBuffer, responder and client poll with BusySpin (responder: Agrona Backoff when not"
            + " busy-spinning); JVM: " + String.join(" ", JVM_ARGUMENTS)
            + (driverOnDataPath && cores < 3 ? "; note: " + cores + " cores here, so the spinning driver thread shares"
                + " them with the spinning responder and client (Aeron's own guidance gives the driver a core)" : "");
    }
}
