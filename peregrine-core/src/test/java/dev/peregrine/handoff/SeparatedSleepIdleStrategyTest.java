package dev.peregrine.handoff;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.ScriptedTransport;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.shm.ShmFutex;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * An application thread asleep in a {@link SeparatedSleepIdleStrategy} is woken by each event the reactor hands
 * over: its sleep lasts up to ten minutes, so an event that did not wake it would wait that long, far past the
 * test's deadline. The test thread plays the reactor, feeding the stack events as a transport would; before each it
 * waits until the application has gone to sleep, so every event meets a sleeper and exactly one wake-up.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SeparatedSleepIdleStrategyTest {
    private static final long NEVER_NS = TimeUnit.MINUTES.toNanos(10);
    private static final long WAIT_LIMIT_NS = TimeUnit.SECONDS.toNanos(20); // a wake-up takes microseconds
    private static final int EVENTS = 200;
    private static final InetSocketAddress PEER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 5);

    /** Counts the messages it gets and checks their sequence; on the application thread. */
    private static final class Counting implements ChannelHandler {
        volatile long messages;
        volatile long outOfOrder;

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            if (buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset) != messages + 1) {
                outOfOrder = outOfOrder + 1;
            }
            messages = messages + 1;
        }
    }

    @Test
    void shouldWakeASleepingApplicationThreadForEveryEventHandedOver() throws Exception {
        assumeThat(ShmFutex.isAvailable()).as(String.valueOf(ShmFutex.unavailableReason())).isTrue();
        final List<Throwable> errors = new CopyOnWriteArrayList<>();
        final Counting handler = new Counting();
        final MemorySegment message = MemorySegment.ofArray(new byte[64]);
        try (Reactor reactor = new Reactor(new ReactorOptions().errorHandler(errors::add));
             ReactorCommandRing commands = new ReactorCommandRing(reactor, new CommandRingOptions())) {
            final SeparatedStack stack = new SeparatedStack(reactor, commands, 1 << 12);
            stack.attach(new ScriptedTransport());
            final SeparatedAgent agent = new SeparatedAgent(stack, handler, errors::add, 16);
            final SeparatedSleepIdleStrategy idle = new SeparatedSleepIdleStrategy(stack, 0, NEVER_NS);
            stack.onAccepted(1, 10, PEER);
            final WorkerRunner runner = new WorkerRunner("sleeping-application", agent, idle, -1).start();
            try {
                for (int i = 1; i <= EVENTS; i++) {
                    final long sleeps = i; // the first sleep follows the accept; each later one follows a message
                    awaitAtLeast(stack::applicationSleeps, sleeps, "sleep " + sleeps + " of the application");
                    message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
                    stack.onMessage(10, message, 0, 64);
                    awaitAtLeast(() -> handler.messages, i, "message " + i + " delivered (a lost wake-up sleeps 10 min)");
                }
                assertThat(stack.applicationWakeUps()).as("one wake-up per event handed to a sleeper")
                    .isEqualTo(EVENTS);
            } finally {
                runner.close(); // wakes the sleeper: a close that did not would wait out its ten minutes
            }
            assertThat(handler.outOfOrder).isZero();
            assertThat(errors).isEmpty();
            stack.close();
        }
    }

    @Test
    void shouldRefuseBadArgumentsWithTheirValues() {
        try (Reactor reactor = new Reactor();
             ReactorCommandRing commands = new ReactorCommandRing(reactor, new CommandRingOptions())) {
            final SeparatedStack stack = new SeparatedStack(reactor, commands, 1 << 12);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> new SeparatedSleepIdleStrategy(stack, -1, NEVER_NS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxYields=-1");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> new SeparatedSleepIdleStrategy(stack, 0, 10))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxSleepNs=10");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> new SeparatedSleepIdleStrategy(null, 0, NEVER_NS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("stack=null");
            stack.close();
        }
    }

    private static void awaitAtLeast(final LongSupplier value, final long target, final String what) {
        final long deadline = System.nanoTime() + WAIT_LIMIT_NS;
        while (value.getAsLong() < target) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not reached within " + WAIT_LIMIT_NS + " ns: " + what + " (value="
                    + value.getAsLong() + ")");
            }
            Thread.yield();
        }
    }
}
