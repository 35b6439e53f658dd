package dev.peregrine.bench.transports;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.SendResult;
import dev.peregrine.channel.Transport;
import dev.peregrine.handoff.CommandRingOptions;
import dev.peregrine.handoff.ReactorCommandRing;
import dev.peregrine.handoff.SeparatedAgent;
import dev.peregrine.handoff.SeparatedStack;
import dev.peregrine.handoff.SeparatedTransport;
import dev.peregrine.handoff.WorkerRunner;
import dev.peregrine.peers.Responder;
import dev.peregrine.reactor.IdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.YieldingIdleStrategy;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The echo side with a separated stack: the transport on a reactor thread, the echo handler on an application
 * thread of its own that never spins ({@link YieldingIdleStrategy} or a futex sleep, as {@link SeparatedBench}
 * chooses: on two vCPUs a third spinning thread would measure the scheduler). Events reach the handler through the stack's ring, echoes go back through the command
 * ring: two hand-offs per round trip more than the shared stack.
 */
final class SeparatedResponder implements Responder, ChannelHandler {
    private static final long ECHO_STALL_NS = TimeUnit.SECONDS.toNanos(1);

    private final Reactor reactor;
    private final Transport real;
    private final ReactorCommandRing commands;
    private final SeparatedStack stack;
    private final SeparatedTransport transport;
    private final CountDownLatch ready = new CountDownLatch(1);
    private WorkerRunner runner;
    private volatile String failure;
    private volatile long messages;

    private SeparatedResponder(final Reactor reactor, final Function<ChannelHandler, Transport> transportOn,
                               final int largest) {
        this.reactor = reactor;
        int capacity = 1 << 16;
        while (capacity / 2 - 64 < largest) {
            capacity <<= 1;
        }
        this.commands = new ReactorCommandRing(reactor, new CommandRingOptions().capacity(capacity));
        this.stack = new SeparatedStack(reactor, commands, capacity);
        this.real = transportOn.apply(stack);
        this.transport = stack.attach(real);
    }

    /**
     * Starts the reactor, listens through the application's transport, starts the application thread and waits
     * until the transport listens.
     *
     * @param reactor a reactor not yet started
     * @param transportOn makes the real transport on that reactor with the given handler
     * @param address where to listen
     * @param largest the longest message of the run
     * @param applicationIdle the application thread's idle strategy, made for the stack
     * @return the listening responder
     * @throws IOException if it does not listen within 10 s (closed then)
     * @throws InterruptedException if interrupted while waiting
     */
    static SeparatedResponder start(final Reactor reactor, final Function<ChannelHandler, Transport> transportOn,
                                    final SocketAddress address, final int largest,
                                    final Function<SeparatedStack, IdleStrategy> applicationIdle)
        throws IOException, InterruptedException {
        final SeparatedResponder responder = new SeparatedResponder(reactor, transportOn, largest);
        reactor.start();
        responder.transport.listen(address); // this thread is the application's until the runner starts
        responder.runner = new WorkerRunner(reactor.name() + "-application",
            new SeparatedAgent(responder.stack, responder, reactor.errorHandler(), 64),
            applicationIdle.apply(responder.stack), -1)
            .start();
        if (!responder.ready.await(10, TimeUnit.SECONDS) || responder.failure != null) {
            responder.close();
            throw new IOException(responder.failure != null ? responder.failure
                : "separated responder did not listen on " + address + " in 10 s");
        }
        return responder;
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
    public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
        long result = transport.send(channelId, buffer, offset, length);
        if (result == SendResult.BACK_PRESSURED) {
            final long giveUp = System.nanoTime() + ECHO_STALL_NS;
            do { // one message in flight: the ring frees within a reactor cycle
                Thread.yield();
                result = transport.send(channelId, buffer, offset, length);
            } while (result == SendResult.BACK_PRESSURED && System.nanoTime() - giveUp < 0);
        }
        if (result < 0) {
            reactor.errorHandler().onError(new IllegalStateException("no echo on channel " + channelId + ": "
                + SendResult.describe(result) + "; closing it"));
            transport.close(channelId);
            return;
        }
        messages = messages + 1; // the application thread is the single writer
    }

    @Override
    public long messages() {
        return messages;
    }

    /** Stops the application thread, then closes the transport and the rings on the reactor thread, then the reactor. */
    @Override
    public void close() {
        if (runner != null) {
            runner.close();
        }
        final CountDownLatch closed = new CountDownLatch(1);
        if (!reactor.isClosed() && reactor.execute(() -> {
            real.close();
            stack.close();
            commands.close();
            closed.countDown();
        })) {
            try {
                closed.await(5, TimeUnit.SECONDS);
            } catch (final InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        reactor.close();
    }
}
