package dev.peregrine.handoff;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.Transport;
import dev.peregrine.reactor.IdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.reactor.YieldingIdleStrategy;
import dev.peregrine.shm.ShmFutex;
import dev.peregrine.tcp.Framing;
import dev.peregrine.tcp.TcpOptions;
import dev.peregrine.tcp.TcpTransport;
import dev.peregrine.testkit.AllocationMeter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * A separated stack over real loopback TCP: the server's transport on a reactor thread, its echo handler on an
 * application thread of its own, listening through the facade; a client on a reactor driven by the test thread.
 * Once warm, neither the server's reactor thread nor its application thread allocates anything in any window of
 * round trips (zero tolerance), and the client gets every echo, in order.
 */
@Tag("slow")
@Timeout(value = 400, unit = TimeUnit.SECONDS)
class SeparatedStackTcpTest {
    private static final int SIZE = 256;
    private static final long WAIT_LIMIT_NS = 60_000_000_000L;
    /** Sets of ten windows measured at most until one allocates nothing. */
    private static final int MAX_SETS = 5;
    private static final ValueLayout.OfLong SEQUENCE = ValueLayout.JAVA_LONG_UNALIGNED;

    /** The application: echoes every message through the transport it is given; allocation-free. */
    private static final class Echo implements ChannelHandler {
        private final Transport transport;
        volatile SocketAddress bound;
        volatile Thread thread;
        volatile long refused;
        volatile long closed;

        Echo(final Transport transport) {
            this.transport = transport;
        }

        @Override
        public void onListening(final long serverId, final SocketAddress localAddress) {
            bound = localAddress;
        }

        @Override
        public void onAccepted(final long serverId, final long channelId, final SocketAddress remoteAddress) {
            thread = Thread.currentThread();
        }

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            if (transport.send(channelId, buffer, offset, length) != 0) {
                refused = refused + 1;
            }
        }

        @Override
        public void onClosed(final long channelId, final CloseReason reason, final String detail) {
            closed = closed + 1;
        }
    }

    /** The client side: remembers its channel and the last sequence echoed. */
    private static final class Client implements ChannelHandler {
        long channelId = -1;
        long lastSequence = -1;
        long echoes;

        @Override
        public void onConnected(final long channelId, final SocketAddress remoteAddress) {
            this.channelId = channelId;
        }

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            lastSequence = buffer.get(SEQUENCE, offset);
            echoes++;
        }
    }

    @Test
    void shouldAllocateNothingPerMessageOnTheReactorOrTheApplicationThreadOnceWarm() throws Exception {
        roundTripsAllocateNothing(stack -> new YieldingIdleStrategy());
    }

    /**
     * The same with the application thread asleep between messages ({@link SeparatedSleepIdleStrategy}): the
     * reactor's wake-up ({@code FUTEX_WAKE}) and the application's sleep allocate nothing either.
     */
    @Test
    void shouldAllocateNothingPerMessageWhenTheApplicationThreadSleepsBetweenMessages() throws Exception {
        assumeThat(ShmFutex.isAvailable()).as(String.valueOf(ShmFutex.unavailableReason())).isTrue();
        final SeparatedStack[] seen = new SeparatedStack[1];
        roundTripsAllocateNothing(stack -> {
            seen[0] = stack;
            return new SeparatedSleepIdleStrategy(stack, 0, 100_000_000L);
        });
        assertThat(seen[0].applicationWakeUps()).as("the application slept and was woken").isPositive();
    }

    private void roundTripsAllocateNothing(final Function<SeparatedStack, IdleStrategy> applicationIdle)
        throws Exception {
        final List<Throwable> errors = new CopyOnWriteArrayList<>();
        final Client client = new Client();
        WorkerRunner runner = null;
        // one reactor, driven by the test thread, owns the server's transport and the client's: the test thread is
        // the reactor thread, and on two cores only it and the application thread need one
        try (Reactor reactor = new Reactor(new ReactorOptions().name("separated-reactor").errorHandler(errors::add));
             ReactorCommandRing commands = new ReactorCommandRing(reactor, new CommandRingOptions())) {
            final SeparatedStack stack = new SeparatedStack(reactor, commands, 1 << 16);
            final TcpTransport server = new TcpTransport(reactor, new TcpOptions().framing(Framing.parse("length:4le")),
                stack);
            final Echo echo = new Echo(stack.attach(server));
            final SeparatedAgent agent = new SeparatedAgent(stack, echo, errors::add, 64);
            final TcpTransport clientTcp = new TcpTransport(reactor, new TcpOptions().framing(Framing.parse("length:4le")),
                client);
            // listen through the facade, from a thread that is not the reactor's (it waits for the reactor's answer)
            final Thread listener = new Thread(() -> echo.transport.listen(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)), "listener");
            listener.start();
            spin(reactor, () -> !listener.isAlive());
            listener.join();
            runner = new WorkerRunner("separated-application", agent, applicationIdle.apply(stack), -1).start();
            spin(reactor, () -> echo.bound != null);
            clientTcp.connect(echo.bound);
            spin(reactor, () -> client.channelId >= 0 && echo.thread != null);
            final MemorySegment message = Arena.ofAuto().allocate(SIZE);
            final long[] sequence = {0};
            final Runnable roundTrip = () -> {
                final long expected = ++sequence[0];
                message.set(SEQUENCE, 0, expected);
                if (clientTcp.send(client.channelId, message, 0, SIZE) < 0) {
                    throw new IllegalStateException("client send refused");
                }
                final long deadline = System.nanoTime() + WAIT_LIMIT_NS;
                while (client.lastSequence != expected) {
                    if (reactor.doWork() == 0) {
                        Thread.yield(); // two cores: let the application thread run
                    }
                    if (System.nanoTime() - deadline > 0) {
                        throw new AssertionError("no echo of " + expected + ", refused=" + echo.refused);
                    }
                }
            };
            // long enough for the JIT to settle the three threads' paths (a deoptimisation that materialises
            // scalar-replaced objects is what a short warm-up shows, once, on a loaded two-core machine)
            for (int i = 0; i < 40_000; i++) {
                roundTrip.run();
            }
            final long appThread = echo.thread.threadId();
            // zero tolerance in the first clean set of ten windows (AllocationMeter.firstCleanSet's rule, both threads
            // read from this one): a set that allocated is the further warm-up of the next; an allocation once per
            // set (20 000 round trips) or more often shows in every set and fails
            final AllocationMeter.CleanSets sets = new AllocationMeter.CleanSets(1, MAX_SETS);
            long allocated;
            do {
                allocated = 0;
                for (int window = 0; window < 10; window++) {
                    final long reactorBefore = AllocationMeter.allocatedBytes();
                    final long appBefore = AllocationMeter.allocatedBytes(appThread);
                    for (int i = 0; i < 2_000; i++) {
                        roundTrip.run();
                    }
                    final long reactorBytes = AllocationMeter.allocatedBytes() - reactorBefore;
                    final long appBytes = AllocationMeter.allocatedBytes(appThread) - appBefore;
                    if (reactorBytes + appBytes != 0) {
                        System.out.println("set " + sets.sets() + " window " + window + ": reactor thread " + reactorBytes
                            + " B, application thread " + appBytes + " B");
                    }
                    allocated += reactorBytes + appBytes;
                }
            } while (sets.another(allocated));
            assertThat(client.echoes).isEqualTo(sequence[0]);
            assertThat(echo.refused).isZero();
            assertThat(allocated).as("bytes the reactor and application threads allocated in ten windows of 2 000 warm"
                + " round trips, set %d of at most %d", sets.sets(), MAX_SETS).isZero();
            assertThat(commands.discarded()).isZero();
            assertThat(stack.dropped() + stack.overflowed()).isZero();
            assertThat(errors).isEmpty();
            runner.close();
            runner = null;
            clientTcp.close();
            server.close();
            stack.close();
        } finally {
            if (runner != null) {
                runner.close();
            }
        }
    }

    private static void spin(final Reactor reactor, final BooleanSupplier condition) {
        final long deadline = System.nanoTime() + WAIT_LIMIT_NS;
        while (!condition.getAsBoolean()) {
            if (reactor.doWork() == 0) {
                Thread.yield();
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not reached in time");
            }
        }
    }
}
