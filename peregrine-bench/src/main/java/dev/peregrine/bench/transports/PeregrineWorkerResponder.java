package dev.peregrine.bench.transports;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.SendResult;
import dev.peregrine.channel.Transport;
import dev.peregrine.handoff.CommandRingOptions;
import dev.peregrine.handoff.KeyFunction;
import dev.peregrine.handoff.ReactorCommandRing;
import dev.peregrine.handoff.ReadPausable;
import dev.peregrine.handoff.WorkerAgent;
import dev.peregrine.handoff.WorkerDemux;
import dev.peregrine.handoff.WorkerHandler;
import dev.peregrine.handoff.WorkerRunner;
import dev.peregrine.peers.Responder;
import dev.peregrine.reactor.ErrorHandler;
import dev.peregrine.reactor.IdleStrategy;
import dev.peregrine.reactor.Reactor;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The echo side of {@code bench load --workers N}: one reactor thread owns the transport (TCP or shared memory)
 * and hands each inbound message to one of N worker threads through a {@link WorkerDemux} (the connection's id is
 * the key, so each connection's messages keep their order); each worker echoes through the reactor's
 * {@link ReactorCommandRing}, which the reactor drains into the transport at the start of its next cycle. This is
 * the handoff package's own example, measured.
 *
 * <p>Nothing is lost silently:
 * <ul>
 *   <li>TCP and shared memory pause a connection whose worker is full ({@link WorkerDemux#pauseWith}); a message the demux still
 *       could not keep (its backlog full) closes that connection;</li>
 *   <li>a transport that cannot pause (not {@link ReadPausable}): a message the demux drops for a full worker ring closes that connection.
 *       The rings are sized ({@value #WORKER_RING_BYTES} bytes each) so that a load run does not fill them;</li>
 *   <li>a worker that finds the command ring full for {@value #OFFER_LIMIT_MS} ms throws, and its
 *       {@link WorkerAgent} closes that connection.</li>
 * </ul>
 * Each of these is counted ({@link #failures()}) and reported on standard error; the client sees its connection
 * close and the run fails with the reason, instead of waiting for an echo that will not come.
 *
 * <p>Threading: the transport, the demux and the command ring's drain belong to the reactor thread; each worker
 * agent to its worker thread. Nothing allocates per message on either.
 */
final class PeregrineWorkerResponder implements Responder, ChannelHandler {
    /** Bytes of each worker's ring (and of its backlog): some 14 000 messages of 256 bytes. */
    static final int WORKER_RING_BYTES = 1 << 22;
    /** Bytes of the command ring the workers answer through. */
    static final int COMMAND_RING_BYTES = 1 << 22;
    /** How long a worker retries an echo that finds the command ring full before it gives the connection up. */
    static final long OFFER_LIMIT_MS = 1_000;
    /** Longs between two workers' counters: each on a 128-byte slot of its own. */
    private static final int COUNTER_STRIDE = 16;

    private final Reactor reactor;
    private final Transport transport;
    private final WorkerDemux demux;
    private final ReactorCommandRing commands;
    private final WorkerRunner[] runners;
    private final AtomicLongArray echoes;
    private final ErrorHandler errors = error -> System.err.println("peregrine: worker responder: " + error);
    private final CountDownLatch ready = new CountDownLatch(1);
    private volatile String failure;
    private final AtomicLong failures = new AtomicLong();

    /**
     * Makes the reactor's parts; nothing runs yet.
     *
     * @param reactor the reactor, not started
     * @param transportOf makes the transport with its handler
     * @param workers how many workers
     * @param workerIdle makes each worker's idle strategy
     * @param ringBytes bytes of each worker's ring
     */
    private PeregrineWorkerResponder(final Reactor reactor, final Function<ChannelHandler, Transport> transportOf,
                                     final int workers, final Supplier<IdleStrategy> workerIdle, final int ringBytes) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers=" + workers);
        }
        this.reactor = reactor;
        this.transport = transportOf.apply(this);
        this.demux = new WorkerDemux(reactor, workers, ringBytes, KeyFunction.CHANNEL_ID, null);
        if (transport instanceof ReadPausable pausable) {
            demux.pauseWith(pausable);
        }
        this.commands = new ReactorCommandRing(reactor, new CommandRingOptions().capacity(COMMAND_RING_BYTES));
        final int index = commands.register(transport);
        this.echoes = new AtomicLongArray(workers * COUNTER_STRIDE);
        this.runners = new WorkerRunner[workers];
        for (int i = 0; i < workers; i++) {
            final WorkerAgent agent = new WorkerAgent(demux.ring(i), new Echo(index, i * COUNTER_STRIDE), commands,
                index, errors, 64, 16);
            runners[i] = new WorkerRunner(reactor.name() + "-worker-" + i, agent, workerIdle.get(), -1);
        }
    }

    /**
     * Starts a responder: the workers, then the reactor, and waits until the transport listens.
     *
     * @param reactor the reactor, not started
     * @param transportOf makes the transport with its handler
     * @param address where to listen
     * @param workers how many workers, at least 1
     * @param workerIdle makes each worker's idle strategy
     * @return the listening responder
     * @throws IOException if it does not listen within 10 s (closed then)
     * @throws InterruptedException if interrupted while waiting
     */
    static PeregrineWorkerResponder start(final Reactor reactor, final Function<ChannelHandler, Transport> transportOf,
                                          final SocketAddress address, final int workers,
                                          final Supplier<IdleStrategy> workerIdle)
        throws IOException, InterruptedException {
        return start(reactor, transportOf, address, workers, workerIdle, WORKER_RING_BYTES, true);
    }

    /**
     * Starts a responder with rings of another size, and its workers or not (a test's worker that never reads).
     *
     * @param reactor the reactor, not started
     * @param transportOf makes the transport with its handler
     * @param address where to listen
     * @param workers how many workers, at least 1
     * @param workerIdle makes each worker's idle strategy
     * @param ringBytes bytes of each worker's ring
     * @param startWorkers false to leave the workers' threads unstarted
     * @return the listening responder
     * @throws IOException if it does not listen within 10 s (closed then)
     * @throws InterruptedException if interrupted while waiting
     */
    static PeregrineWorkerResponder start(final Reactor reactor, final Function<ChannelHandler, Transport> transportOf,
                                          final SocketAddress address, final int workers,
                                          final Supplier<IdleStrategy> workerIdle, final int ringBytes,
                                          final boolean startWorkers)
        throws IOException, InterruptedException {
        final PeregrineWorkerResponder responder = new PeregrineWorkerResponder(reactor, transportOf, workers, workerIdle,
            ringBytes);
        if (startWorkers) {
            for (final WorkerRunner runner : responder.runners) {
                runner.start();
            }
        }
        responder.transport.listen(address); // before start(): the thread start publishes it
        reactor.start();
        if (!responder.ready.await(10, TimeUnit.SECONDS) || responder.failure != null) {
            responder.close();
            throw new IOException(responder.failure != null ? responder.failure
                : "responder did not listen on " + address + " in 10 s");
        }
        return responder;
    }

    /**
     * Connections closed because a message could not be handed over or answered.
     *
     * @return the count
     */
    long failures() {
        return failures.get();
    }

    /**
     * Messages handed to the workers that a full worker ring made the demux drop or overflow.
     *
     * @return the count
     */
    long dropped() {
        return demux.dropped() + demux.overflowed();
    }

    @Override
    public long messages() {
        long sum = 0;
        for (int i = 0; i < runners.length; i++) {
            sum += echoes.get(i * COUNTER_STRIDE);
        }
        return sum;
    }

    @Override
    public void onListening(final long serverId, final SocketAddress localAddress) {
        ready.countDown();
    }

    @Override
    public void onListenFailed(final long serverId, final String reason) {
        failure = reason;
        ready.countDown();
    }

    @Override
    public void onAccepted(final long serverId, final long channelId, final SocketAddress remoteAddress) {
        demux.onAccepted(serverId, channelId, remoteAddress);
    }

    @Override
    public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
        final long before = demux.dropped() + demux.overflowed();
        demux.onMessage(channelId, buffer, offset, length);
        if (demux.dropped() + demux.overflowed() != before) {
            giveUp(channelId, "the demux dropped a message: worker ring full");
        }
    }

    @Override
    public void onClosed(final long channelId, final CloseReason reason, final String detail) {
        demux.onClosed(channelId, reason, detail);
    }

    /** A message that cannot be answered closes its connection, so the client fails at once, with a reason. */
    private void giveUp(final long channelId, final String why) {
        failures.incrementAndGet();
        reactor.errorHandler().onError(new IllegalStateException(why + " on channel " + channelId + "; closing it"));
        transport.close(channelId);
    }

    /**
     * Stops the workers, closes the transport on the reactor's thread, stops the reactor, and only then frees the
     * demux's and the command ring's memory: the demux leaves a wake condition with the reactor that reads its
     * rings, which a reactor still running would read after they are freed.
     */
    @Override
    public void close() {
        for (final WorkerRunner runner : runners) {
            runner.close();
        }
        final CountDownLatch closed = new CountDownLatch(1);
        if (!reactor.isClosed() && reactor.execute(() -> {
            transport.close();
            closed.countDown();
        })) {
            try {
                closed.await(5, TimeUnit.SECONDS);
            } catch (final InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        reactor.close(); // joins the reactor's thread
        demux.close();
        commands.close();
    }

    /** One worker's handler: the message back to its connection through the command ring. */
    private final class Echo implements WorkerHandler {
        private final int transportIndex;
        private final int counter;

        Echo(final int transportIndex, final int counter) {
            this.transportIndex = transportIndex;
            this.counter = counter;
        }

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            long result = commands.offer(transportIndex, channelId, buffer, offset, length);
            if (result == ReactorCommandRing.BACK_PRESSURED) {
                final long giveUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(OFFER_LIMIT_MS);
                do { // the reactor drains the ring at its next cycle start
                    Thread.yield();
                    result = commands.offer(transportIndex, channelId, buffer, offset, length);
                } while (result == ReactorCommandRing.BACK_PRESSURED && System.nanoTime() - giveUp < 0);
            }
            if (result < 0) {
                failures.incrementAndGet();
                // the agent closes the connection through the command ring and reports this
                throw new IllegalStateException("no echo on channel " + channelId + ": "
                    + SendResult.describe(result));
            }
            echoes.lazySet(counter, echoes.get(counter) + 1); // one writer per slot
        }
    }
}
