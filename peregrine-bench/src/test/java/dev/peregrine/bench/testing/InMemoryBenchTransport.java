package dev.peregrine.bench.testing;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.StreamSender;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;

/**
 * A test-only transport in one JVM: two rings of longs per client between it and a responder thread, keyed by
 * port; one responder thread serves every client that connects to its port. The responder can be told to drop some sequences, which makes the transport
 * {@linkplain #lossy() lossy}.
 */
public final class InMemoryBenchTransport implements BenchTransport {
    /** The name on the command line. */
    public static final String NAME = "test-mem";
    /** Per responder port, every connection's pair of rings (pings, echoes), replaced whole when one is added. */
    private static final Map<Integer, AtomicReference<LongRing[][]>> CONNECTIONS = new ConcurrentHashMap<>();
    private static final Map<Integer, LongRing> STREAMS = new ConcurrentHashMap<>();
    private static volatile long dropEvery;

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
    public boolean sharedResponder() {
        return true;
    }

    @Override
    public boolean supportsRespondEvery() {
        return true;
    }

    @Override
    public Responder startResponder(final BenchConfig config) {
        final AtomicReference<LongRing[][]> connections = new AtomicReference<>(new LongRing[0][]);
        CONNECTIONS.put(config.port(), connections);
        final AtomicLong echoed = new AtomicLong();
        final int every = config.respondEvery();
        final Thread thread = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                boolean worked = false;
                for (final LongRing[] rings : connections.get()) {
                    worked |= echo(rings, echoed, every) > 0;
                }
                if (!worked) {
                    if (config.busySpin()) {
                        Thread.onSpinWait();
                    } else {
                        Thread.yield(); // lets the client run on a machine with fewer free cores than threads
                    }
                }
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
                CONNECTIONS.remove(config.port());
            }
        };
    }

    /**
     * Echoes one message of one connection (with {@code every} above 1, only a message numbered, in the low 32 bits,
     * by a multiple of it): 1 if it took one, 0 if none waited.
     */
    private static int echo(final LongRing[] rings, final AtomicLong echoed, final int every) {
        final long sequence = rings[0].poll();
        if (sequence < 0) {
            return 0;
        }
        if ((sequence & 0xFFFF_FFFFL) % every != 0) {
            echoed.lazySet(echoed.get() + 1); // taken, and left unanswered by design
            return 1;
        }
        final long drop = dropEvery;
        if (drop > 0 && sequence % drop == drop - 1) {
            return 1;
        }
        while (!rings[1].offer(sequence)) {
            Thread.onSpinWait();
        }
        echoed.lazySet(echoed.get() + 1);
        return 1;
    }

    @Override
    public PingClient connect(final BenchConfig config) {
        final AtomicReference<LongRing[][]> connections = CONNECTIONS.get(config.port());
        if (connections == null) {
            throw new IllegalStateException("no responder on port=" + config.port());
        }
        final LongRing[] rings = {new LongRing(1 << 16), new LongRing(1 << 16)};
        connections.updateAndGet(all -> {
            final LongRing[][] more = Arrays.copyOf(all, all.length + 1);
            more[all.length] = rings;
            return more;
        });
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
        STREAMS.put(config.port(), ring);
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
                STREAMS.remove(config.port());
            }
        };
    }

    @Override
    public StreamSender connectStreamSender(final BenchConfig config) {
        final LongRing ring = STREAMS.get(config.port());
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
