package dev.peregrine.bench.testing;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.StreamSender;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * A test-only transport in one JVM: two rings of longs between a client and a responder thread, keyed by
 * port. The responder can be told to stall once (sleep) when it sees a given sequence, to test how the
 * harness records a stall, or to drop some sequences, which makes the transport {@linkplain #lossy() lossy}.
 */
public final class InMemoryBenchTransport implements BenchTransport {
    /** The name on the command line. */
    public static final String NAME = "test-mem";
    private static final Map<Integer, LongRing[]> CHANNELS = new ConcurrentHashMap<>();
    private static volatile long stallSequence = -1;
    private static volatile long stallMillis;
    private static volatile long dropEvery;

    /**
     * Makes the next responder sleep once when it receives {@code sequence}.
     *
     * @param sequence the sequence, or -1 for none
     * @param millis how long
     */
    public static void stallOnce(final long sequence, final long millis) {
        stallMillis = millis;
        stallSequence = sequence;
    }

    /**
     * Makes every responder drop (not echo) the sequences {@code n-1, 2n-1, ...}, and the transport lossy.
     *
     * @param n the period, or 0 to drop nothing
     */
    public static void dropEvery(final long n) {
        dropEvery = n;
    }

    @Override
    public boolean lossy() {
        return dropEvery > 0;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "test-only in-memory rings <between> threads & \"quotes\"";
    }

    @Override
    public String path() {
        return "shm";
    }

    @Override
    public Responder startResponder(final BenchConfig config) {
        final LongRing[] rings = {new LongRing(1 << 16), new LongRing(1 << 16)};
        CHANNELS.put(config.port(), rings);
        final AtomicLong echoed = new AtomicLong();
        final Thread thread = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                final long sequence = rings[0].poll();
                if (sequence < 0) {
                    if (config.busySpin()) {
                        Thread.onSpinWait();
                    } else {
                        Thread.yield(); // lets the client run on a machine with fewer free cores than threads
                    }
                    continue;
                }
                final long drop = dropEvery;
                if (drop > 0 && sequence % drop == drop - 1) {
                    continue;
                }
                if (sequence == stallSequence) {
                    stallSequence = -1;
                    try {
                        Thread.sleep(stallMillis);
                    } catch (final InterruptedException ex) {
                        return;
                    }
                }
                while (!rings[1].offer(sequence)) {
                    Thread.onSpinWait();
                }
                echoed.lazySet(echoed.get() + 1);
            }
        }, "test-mem-responder");
        thread.setDaemon(true);
        thread.start();
        return new Responder() {
            @Override
            public long messages() {
                return echoed.get();
            }

            @Override
            public void close() {
                thread.interrupt();
                CHANNELS.remove(config.port());
            }
        };
    }

    @Override
    public PingClient connect(final BenchConfig config) {
        final LongRing[] rings = CHANNELS.get(config.port());
        if (rings == null) {
            throw new IllegalStateException("no responder on port=" + config.port());
        }
        return new PingClient() {
            @Override
            public void send(final long sequence) {
                while (!rings[0].offer(sequence)) {
                    Thread.onSpinWait();
                }
            }

            @Override
            public long poll() {
                return rings[1].poll();
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public boolean supportsStream() {
        return true;
    }

    @Override
    public StreamReceiver startStreamReceiver(final BenchConfig config) {
        final LongRing ring = new LongRing(1 << 16);
        CHANNELS.put(config.port(), new LongRing[] {ring});
        return new StreamReceiver() {
            @Override
            public int poll(final LongConsumer sequences) {
                int count = 0;
                long sequence;
                while (count < 256 && (sequence = ring.poll()) >= 0) {
                    sequences.accept(sequence);
                    count++;
                }
                return count;
            }

            @Override
            public void close() {
                CHANNELS.remove(config.port());
            }
        };
    }

    @Override
    public StreamSender connectStreamSender(final BenchConfig config) {
        final LongRing ring = CHANNELS.get(config.port())[0];
        return new StreamSender() {
            @Override
            public boolean offer(final long sequence) {
                return ring.offer(sequence);
            }

            @Override
            public void close() {
            }
        };
    }
}
