package dev.peregrine.bench.transports;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchMessageLayout;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.StreamSender;
import dev.peregrine.peers.support.ReplyLength;
import dev.peregrine.reactor.BackoffIdleStrategy;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.IdleStrategy;
import dev.peregrine.shm.ShmBackoffWait;
import dev.peregrine.shm.ShmBusySpinWait;
import dev.peregrine.shm.ShmFutexWait;
import dev.peregrine.shm.ShmMessageHandler;
import dev.peregrine.shm.ShmOptions;
import dev.peregrine.shm.ShmRingDescriptor;
import dev.peregrine.shm.ShmRingReader;
import dev.peregrine.shm.ShmRingWriter;
import dev.peregrine.shm.ShmServerSocket;
import dev.peregrine.shm.ShmSocket;
import dev.peregrine.shm.ShmWaitStrategy;

import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * What the two shared-memory adapters share: the rendezvous path derived from the {@link BenchConfig} (so a
 * responder in another JVM started with the same config is found), an echo responder on a thread of its own,
 * a zero-copy ping client, and the one-way stream. They differ only in how the waiting side waits.
 */
abstract class PeregrineShmBenchSupport implements BenchTransport {
    private static final ValueLayout.OfLong SEQUENCE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long LIVENESS_CHECK_NS = 100_000_000L;
    private static final int IDLE_POLLS_PER_CLOCK_CHECK = 1023;
    private static final int MAX_SOCKET_PATH = 100;

    /**
     * How the responder (and the stream receiver) waits for messages.
     *
     * @param config the run's configuration
     * @return a new strategy
     */
    abstract ShmWaitStrategy waitStrategy(BenchConfig config);

    @Override
    public String path() {
        return "shm";
    }

    @Override
    public String unavailableReason(final BenchConfig config) {
        final int length = address(config, "pp").getPath().toString().length();
        if (length > MAX_SOCKET_PATH) {
            return "the rendezvous socket path in " + config.directory() + " is " + length
                + " characters, longer than a Unix domain socket allows";
        }
        return null;
    }

    static UnixDomainSocketAddress address(final BenchConfig config, final String kind) {
        return UnixDomainSocketAddress.of(config.directory().toAbsolutePath()
            .resolve("peregrine-shm-" + config.port() + "-" + kind + ".sock"));
    }

    ShmOptions options(final BenchConfig config) {
        int capacity = 1 << 20;
        while (ShmRingDescriptor.maxMessageLengthFor(capacity) < config.largest()) {
            capacity <<= 1;
        }
        // one ring carries the messages, the other the replies: both take the larger
        return new ShmOptions().ringCapacity(capacity).maxMessageLength(config.largest()).recordAlignment(recordAlignment());
    }

    /**
     * Where records start in the rings: the library's default, a cache line, unless an adapter packs them.
     *
     * @return the record alignment
     */
    int recordAlignment() {
        return ShmRingDescriptor.CACHE_LINE_ALIGNMENT;
    }

    static ShmWaitStrategy spinOrBackoff(final BenchConfig config) {
        return config.busySpin() ? new ShmBusySpinWait() : new ShmBackoffWait();
    }

    static ShmWaitStrategy futex() {
        return new ShmFutexWait(0);
    }

    @Override
    public Responder startResponder(final BenchConfig config) {
        return new EchoResponder(new ShmServerSocket(address(config, "pp"), options(config)), waitStrategy(config),
            config.asymmetric() ? config.replySize() : -1, config.sequenceLength());
    }

    /**
     * One reactor thread serving every client's rings ({@code bench load}'s shared topology); the clients are
     * {@link #connect}ed as usual and driven by the one client thread.
     */
    @Override
    public Responder startSharedResponder(final BenchConfig config) throws Exception {
        return PeregrineShmSharedResponder.start(address(config, "pp"), options(config), sharedIdle(config), config);
    }

    @Override
    public boolean sharedResponder() {
        return true;
    }

    /** The most shared memory the rings of one run may take, all clients together: two rings a client. */
    static final long MAX_RUN_RING_BYTES = 512L << 20;

    /**
     * Refuses a run whose rings would take more than {@link #MAX_RUN_RING_BYTES} of shared memory: two rings a
     * client, each of {@link #options(BenchConfig)}'s capacity (1 MiB at 256 B), so 256 clients at most.
     */
    @Override
    public String clientsUnavailableReason(final BenchConfig config, final int clients) {
        final long ring = options(config).ringCapacity();
        final long most = MAX_RUN_RING_BYTES / (2 * ring);
        if (clients <= most) {
            return null;
        }
        return name() + " gives each client two rings of " + (ring >> 10) + " KiB: " + clients + " clients would map "
            + (2 * ring * clients >> 20) + " MiB of shared memory; it runs at most " + most + " clients (of "
            + (MAX_RUN_RING_BYTES >> 20) + " MiB)";
    }

    /**
     * How the shared responder's reactor waits between cycles: it polls rings, so a strategy that polls, as the
     * adapter's own responder waits.
     *
     * @param config the run's configuration
     * @return a new strategy
     */
    IdleStrategy sharedIdle(final BenchConfig config) {
        return config.busySpin() ? new BusySpinIdleStrategy() : new BackoffIdleStrategy();
    }

    @Override
    public PingClient connect(final BenchConfig config) {
        return new Client(ShmSocket.connect(address(config, "pp"), options(config)), config);
    }

    @Override
    public boolean supportsReplySize() {
        return true;
    }

    @Override
    public boolean supportsStream() {
        return true;
    }

    @Override
    public StreamReceiver startStreamReceiver(final BenchConfig config) {
        return new Receiver(new ShmServerSocket(address(config, "st"), options(config)));
    }

    @Override
    public StreamSender connectStreamSender(final BenchConfig config) {
        return new Sender(ShmSocket.connect(address(config, "st"), options(config)), config.size());
    }

    /** Echoes every message of every client, one client at a time, on a thread of its own. */
    static final class EchoResponder implements Responder, ShmMessageHandler {
        private final ShmServerSocket server;
        private final ShmWaitStrategy wait;
        private final Thread thread;
        private final AtomicLong messages = new AtomicLong();
        private final int replySize;
        /** Bytes of the sequence field a reply copies from its message. */
        private final int sequenceLength;
        private volatile boolean running = true;
        private ShmRingWriter writer;

        EchoResponder(final ShmServerSocket server, final ShmWaitStrategy wait, final int replySize,
                      final int sequenceLength) {
            this.server = server;
            this.wait = wait;
            this.replySize = replySize;
            this.sequenceLength = sequenceLength;
            this.thread = new Thread(this::run, "peregrine-shm-responder");
            thread.setDaemon(true);
            thread.start();
        }

        private void run() {
            while (running) {
                final ShmSocket socket;
                try {
                    socket = server.accept();
                } catch (final UncheckedIOException ex) {
                    return; // closed
                }
                try (socket) {
                    serve(socket);
                }
            }
        }

        private void serve(final ShmSocket socket) {
            final ShmRingReader reader = socket.reader();
            writer = socket.writer();
            final boolean spinning = wait instanceof ShmBusySpinWait;
            long lastCheck = System.nanoTime();
            int idlePolls = 0;
            while (running) {
                final int work = reader.poll(this, 64);
                if (work > 0) {
                    // lazySet: a counter for the bench's statistics, not a fence after every echo
                    messages.lazySet(messages.get() + work);
                } else if (work < 0) {
                    return;
                } else if (!spinning || (++idlePolls & IDLE_POLLS_PER_CLOCK_CHECK) == 0) {
                    // spinning, the clock is read now and then, not on every empty poll: reading it costs as much
                    // as a poll. A waiting strategy that sleeps checks on every wake-up
                    final long now = System.nanoTime();
                    if (now - lastCheck > LIVENESS_CHECK_NS) {
                        lastCheck = now;
                        if (socket.isPeerGone()) {
                            return;
                        }
                    }
                }
                wait.idle(reader, work, LIVENESS_CHECK_NS);
            }
        }

        @Override
        public void onMessage(final MemorySegment buffer, final long offset, final int length) {
            final ShmRingWriter writer = this.writer;
            // an echo, or a reply of replySize bytes that starts with the message's sequence field
            final int answer = replySize < 0 ? length : replySize;
            long index;
            while ((index = writer.tryClaim(answer)) < 0) {
                if (index == ShmRingWriter.CLOSED) {
                    return;
                }
                Thread.onSpinWait();
            }
            MemorySegment.copy(buffer, offset, writer.buffer(), index, replySize < 0 ? length : Math.min(length, sequenceLength));
            writer.commit(index);
        }

        @Override
        public long messages() {
            return messages.get();
        }

        @Override
        public void close() {
            running = false;
            server.close();
            try {
                thread.join(5_000);
            } catch (final InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Writes pings straight into the ring and polls echoes as views. An empty poll looks, one time in
     * {@value #CLOSE_CHECK_MASK} + 1, whether the responder has closed the echo ring, and then throws: a run fails at
     * once rather than at its wait for an echo that will not come.
     */
    static final class Client implements PingClient, ShmMessageHandler {
        static final int CLOSE_CHECK_MASK = 1023;
        private final ShmSocket socket;
        private final ShmRingWriter writer;
        private final ShmRingReader reader;
        private final int size;
        private final int replySize;
        /** Bytes of the sequence field ({@link BenchMessageLayout}). */
        private final int sequenceLength;
        private long lastSent;
        private long received;
        private int receivedLength;
        private int emptyPolls;

        Client(final ShmSocket socket, final BenchConfig config) {
            this.socket = socket;
            this.writer = socket.writer();
            this.reader = socket.reader();
            this.size = config.size();
            this.replySize = config.replySize();
            this.sequenceLength = config.sequenceLength();
        }

        @Override
        public void send(final long sequence) {
            long index;
            while ((index = writer.tryClaim(size)) < 0) {
                if (index == ShmRingWriter.CLOSED) {
                    throw new IllegalStateException("shared-memory channel closed");
                }
                Thread.onSpinWait();
            }
            BenchMessageLayout.putSequence(writer.buffer(), index, sequenceLength, sequence);
            writer.commit(index);
            lastSent = sequence;
        }

        @Override
        public long poll() {
            received = -1;
            reader.poll(this, 1);
            if (received < 0) {
                // now and then, off the path of an echo: a responder that closed the channel fails the run at once
                if ((++emptyPolls & CLOSE_CHECK_MASK) == 0 && reader.isWriterClosed()) {
                    throw new IllegalStateException("shared-memory channel closed by the responder");
                }
                return -1;
            }
            return BenchMessageLayout.widen(ReplyLength.check(receivedLength, replySize, received),
                lastSent, sequenceLength);
        }

        @Override
        public void onMessage(final MemorySegment buffer, final long offset, final int length) {
            received = BenchMessageLayout.sequence(buffer, offset, sequenceLength);
            receivedLength = length;
        }

        @Override
        public void close() {
            socket.close();
        }
    }

    /** Receiving end of the stream; the connection is accepted on a thread of its own. */
    static final class Receiver implements StreamReceiver, ShmMessageHandler {
        private final ShmServerSocket server;
        private final Thread acceptor;
        private volatile ShmSocket socket;
        private ShmRingReader reader;
        private LongConsumer sequences;

        Receiver(final ShmServerSocket server) {
            this.server = server;
            this.acceptor = new Thread(() -> {
                try {
                    socket = server.accept();
                } catch (final UncheckedIOException ex) {
                    // closed before a sender came
                }
            }, "peregrine-shm-stream-acceptor");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        @Override
        public int poll(final LongConsumer sequences) {
            if (reader == null) {
                final ShmSocket connected = socket;
                if (connected == null) {
                    return 0;
                }
                reader = connected.reader();
            }
            this.sequences = sequences;
            return Math.max(0, reader.poll(this, 4096));
        }

        @Override
        public void onMessage(final MemorySegment buffer, final long offset, final int length) {
            sequences.accept(buffer.get(SEQUENCE, offset));
        }

        @Override
        public void close() {
            server.close();
            final ShmSocket connected = socket;
            if (connected != null) {
                connected.close();
            }
        }
    }

    /** Sending end of the stream: claims, writes the sequence, commits. */
    static final class Sender implements StreamSender {
        private final ShmSocket socket;
        private final ShmRingWriter writer;
        private final int size;

        Sender(final ShmSocket socket, final int size) {
            this.socket = socket;
            this.writer = socket.writer();
            this.size = size;
        }

        @Override // compiled in this class, the loop's call of offer(long) is this class's alone
        public int offer(final long firstSequence, final int count) {
            return StreamSender.offerEach(this, firstSequence, count);
        }

        @Override
        public boolean offer(final long sequence) {
            final long index = writer.tryClaim(size);
            if (index < 0) {
                return false;
            }
            writer.buffer().set(SEQUENCE, index, sequence);
            writer.commit(index);
            return true;
        }

        @Override
        public void close() {
            socket.close();
        }
    }
}
