package dev.peregrine.bench.fanout;

import dev.peregrine.peers.aeron.AeronDriverSettings;
import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.FragmentAssembler;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.FragmentHandler;
import org.agrona.CloseHelper;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;

/**
 * Aeron IPC: one exclusive publication on {@code aeron:ipc}, one subscription in each reader process, an embedded
 * media driver in this JVM in {@link ThreadingMode#SHARED}. The publication is held back by its slowest subscriber.
 */
final class AeronIpcFanout implements FanoutTransport {
    private static final String CHANNEL = "aeron:ipc";
    private static final int STREAM_ID = 1010;
    private static final long CONNECT_TIMEOUT_NS = 20_000_000_000L;
    // the same steps as Peregrine's BroadcastWait.BACKOFF: 100 spins, 10 yields, parks of 1 us doubling to 1 ms
    private static final long MAX_SPINS = 100;
    private static final long MAX_YIELDS = 10;
    private static final long MIN_PARK_NS = 1_000;
    private static final long MAX_PARK_NS = 1_000_000;

    @Override
    public String name() {
        return "aeron-ipc";
    }

    @Override
    public int maxReaders() {
        return 64;
    }

    @Override
    public boolean dropsWhenBehind() {
        return false;
    }

    @Override
    public List<String> jvmArguments() {
        return AeronDriverSettings.JVM_ARGUMENTS;
    }

    @Override
    public String describe() {
        return name() + ": one ExclusivePublication on " + CHANNEL + " stream " + STREAM_ID + ", one Subscription per"
            + " reader process; embedded MediaDriver in the writer's JVM, ThreadingMode.SHARED, sharedIdleStrategy"
            + " Agrona BackoffIdleStrategy with its defaults (the driver's conductor advances the publication's limit),"
            + " term " + AeronDriverSettings.TERM_LENGTH / (1024 * 1024) + " MiB, termBufferSparseFile=false;"
            + " subscribers poll (up to " + LATENCY_POLL_LIMIT + " fragments, " + THROUGHPUT_POLL_LIMIT + " in"
            + " throughput runs, FragmentAssembler) and back off as"
            + " BroadcastWait.BACKOFF does: BackoffIdleStrategy(" + MAX_SPINS + " spins, " + MAX_YIELDS + " yields,"
            + " park 1 us to 1 ms); clients' conductors SleepingMillisIdleStrategy(1); JVM: "
            + String.join(" ", AeronDriverSettings.JVM_ARGUMENTS);
    }

    private static String aeronDirectory(final Path directory) {
        return directory.resolve("aeron").toString();
    }

    @Override
    public Writer openWriter(final Path directory, final int size, final int readers) {
        final MediaDriver driver = MediaDriver.launch(new MediaDriver.Context()
            .aeronDirectoryName(aeronDirectory(directory))
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(new BackoffIdleStrategy())
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .termBufferSparseFile(false)
            .ipcTermBufferLength(AeronDriverSettings.TERM_LENGTH)
            .warnIfDirectoryExists(false));
        Aeron aeron = null;
        try {
            aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(aeronDirectory(directory))
                .idleStrategy(new SleepingMillisIdleStrategy(1)));
            final ExclusivePublication publication = aeron.addExclusivePublication(CHANNEL, STREAM_ID);
            final Aeron client = aeron;
            final ByteBuffer bytes = ByteBuffer.allocateDirect(FanoutMessage.MAX_SIZE).order(ByteOrder.LITTLE_ENDIAN);
            final UnsafeBuffer unsafe = new UnsafeBuffer(bytes);
            final MemorySegment segment = MemorySegment.ofBuffer(bytes);
            return new Writer() {
                @Override
                public MemorySegment buffer() {
                    return segment;
                }

                @Override
                public boolean offer(final int length) {
                    return publication.offer(unsafe, 0, length) > 0;
                }

                @Override
                public void close() {
                    CloseHelper.closeAll(publication, client, driver);
                }
            };
        } catch (final RuntimeException ex) {
            CloseHelper.quietCloseAll(aeron, driver);
            throw ex;
        }
    }

    @Override
    public Reader attach(final Path directory, final int size, final int index, final int pollLimit,
                         final Sink sink) {
        final Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(aeronDirectory(directory))
            .idleStrategy(new SleepingMillisIdleStrategy(1)));
        try {
            final Subscription subscription = aeron.addSubscription(CHANNEL, STREAM_ID);
            final long deadline = System.nanoTime() + CONNECT_TIMEOUT_NS;
            while (!subscription.isConnected()) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("subscription to " + CHANNEL + " stream " + STREAM_ID
                        + " not connected after " + CONNECT_TIMEOUT_NS / 1_000_000 + " ms");
                }
                Thread.onSpinWait();
                Thread.yield();
            }
            final FragmentHandler handler = new FragmentAssembler((buffer, offset, length, header) ->
                sink.onMessage(buffer.getLong(offset + FanoutMessage.SEQUENCE_OFFSET, ByteOrder.LITTLE_ENDIAN),
                    buffer.getLong(offset + FanoutMessage.SEND_NS_OFFSET, ByteOrder.LITTLE_ENDIAN)));
            final BackoffIdleStrategy idle = new BackoffIdleStrategy(MAX_SPINS, MAX_YIELDS, MIN_PARK_NS, MAX_PARK_NS);
            return new Reader() {
                @Override
                public int read() {
                    final int count = subscription.poll(handler, pollLimit);
                    idle.idle(count);
                    return count;
                }

                @Override
                public String failure() {
                    return subscription.isClosed() ? "subscription closed" : null;
                }

                @Override
                public void close() {
                    CloseHelper.closeAll(subscription, aeron);
                }
            };
        } catch (final RuntimeException ex) {
            CloseHelper.quietClose(aeron);
            throw ex;
        }
    }
}
