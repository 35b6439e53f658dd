package dev.peregrine.reactor;

import dev.peregrine.testkit.Needs;
import dev.peregrine.testkit.AllocationMeter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ReactorTest {
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();

    @Test
    void shouldRunHandedOverTasksOnTheReactorThread() throws Exception {
        try (Reactor reactor = new Reactor(new ReactorOptions().name("test-reactor").errorHandler(errors::add))) {
            final Thread thread = reactor.start();
            final CompletableFuture<Thread> ranOn = new CompletableFuture<>();
            assertThat(reactor.execute(() -> ranOn.complete(Thread.currentThread()))).isTrue();
            assertThat(ranOn.get(10, TimeUnit.SECONDS)).isSameAs(thread);
            assertThat(thread.getName()).isEqualTo("test-reactor");
        }
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldWakeBlockingSelectWhenWorkIsHandedOver() throws Exception {
        // the longest sleep is a minute: the task can only run within the test's timeout if execute() wakes the selector
        final ReactorOptions options = new ReactorOptions()
            .idleStrategy(new BlockingSelectIdleStrategy(TimeUnit.MINUTES.toNanos(1))).errorHandler(errors::add);
        try (Reactor reactor = new Reactor(options)) {
            final Thread thread = reactor.start();
            for (int i = 0; i < 20; i++) {
                awaitInSelect(thread);
                final CountDownLatch ran = new CountDownLatch(1);
                reactor.execute(ran::countDown);
                assertThat(ran.await(20, TimeUnit.SECONDS)).as("task %d ran", i).isTrue();
            }
        }
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldGiveChannelsThatWakeABlockingSelectTheTimeOfTheWakeUp() throws Exception {
        final AtomicLong clock = new AtomicLong(TimeUnit.SECONDS.toNanos(1));
        final Pipe pipe = Pipe.open();
        // the longest sleep is a minute, and no timer is set: only the pipe wakes the reactor
        final ReactorOptions options = new ReactorOptions().clock(clock::get)
            .idleStrategy(new BlockingSelectIdleStrategy(TimeUnit.MINUTES.toNanos(1))).errorHandler(errors::add);
        try (Reactor reactor = new Reactor(options)) {
            final CompletableFuture<List<Long>> seen = new CompletableFuture<>();
            final ByteBuffer in = ByteBuffer.allocate(8);
            reactor.execute(() -> reactor.register(pipe.source(), SelectionKey.OP_READ, (key, nowNs) -> {
                try {
                    pipe.source().read(in.clear());
                } catch (final IOException ex) {
                    throw new IllegalStateException(ex);
                }
                // what a handler scheduling a timeout from here would count from
                seen.complete(List.of(nowNs, reactor.nowNs()));
            }));
            final Thread thread = reactor.start();
            awaitInSelect(thread); // asleep since a cycle that read 1 s
            clock.set(TimeUnit.SECONDS.toNanos(2));
            pipe.sink().write(ByteBuffer.wrap(new byte[] {1}));

            assertThat(seen.get(20, TimeUnit.SECONDS)).as("the handler's nowNs and the reactor's")
                .containsExactly(TimeUnit.SECONDS.toNanos(2), TimeUnit.SECONDS.toNanos(2));
        } finally {
            pipe.sink().close();
        }
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldSleepInTheSelectorWhenACallerDrivenReactorIdlesAndHandleTheChannelThatWakesIt() throws Exception {
        final Pipe pipe = Pipe.open();
        // the longest sleep is a minute, and no timer is set: only the pipe ends the idle within the test's timeout
        final ReactorOptions options = new ReactorOptions()
            .idleStrategy(new BlockingSelectIdleStrategy(TimeUnit.MINUTES.toNanos(1))).errorHandler(errors::add);
        try (Reactor reactor = new Reactor(options)) {
            final AtomicInteger reads = new AtomicInteger();
            final CompletableFuture<Integer> readsWhenIdleReturned = new CompletableFuture<>();
            final Thread caller = new Thread(() -> {
                final ByteBuffer in = ByteBuffer.allocate(8);
                reactor.register(pipe.source(), SelectionKey.OP_READ, (key, nowNs) -> {
                    try {
                        reads.addAndGet(pipe.source().read(in.clear()));
                    } catch (final IOException ex) {
                        throw new IllegalStateException(ex);
                    }
                });
                reactor.idle(reactor.doWork());
                readsWhenIdleReturned.complete(reads.get()); // no doWork() since: the idle handled the key
            }, "caller");
            caller.start();
            awaitInSelect(caller);
            pipe.sink().write(ByteBuffer.wrap(new byte[] {1}));

            assertThat(readsWhenIdleReturned.get(20, TimeUnit.SECONDS)).isEqualTo(1);
            caller.join();
        } finally {
            pipe.sink().close();
            pipe.source().close();
        }
        assertThat(errors).isEmpty();
    }

    /** Waits until the thread is inside a selector's blocking select (seen in its stack): only a wake-up gets it out. */
    private static void awaitInSelect(final Thread thread) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!inSelect(thread.getStackTrace())) {
            assertThat(System.nanoTime()).as("the reactor thread never blocked in select").isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    private static boolean inSelect(final StackTraceElement[] stack) {
        for (final StackTraceElement frame : stack) {
            // SelectorImpl.select(timeout) or select(action, timeout); selectNow, which does not block, has its own name
            if (frame.getClassName().equals("sun.nio.ch.SelectorImpl") && frame.getMethodName().equals("select")) {
                return true;
            }
        }
        return false;
    }

    @Test
    void shouldFireTimersWhileSleepingInSelect() throws Exception {
        final ReactorOptions options = new ReactorOptions()
            .idleStrategy(new BlockingSelectIdleStrategy(TimeUnit.MINUTES.toNanos(1))).errorHandler(errors::add);
        try (Reactor reactor = new Reactor(options)) {
            final CountDownLatch fired = new CountDownLatch(3);
            final TimerHandler handler = new TimerHandler() {
                @Override
                public void onTimer(final long timerId, final long cookie, final long nowNs) {
                    fired.countDown();
                    if (cookie < 3) {
                        reactor.timers().schedule(nowNs + 2_000_000, this, cookie + 1);
                    }
                }
            };
            reactor.execute(() -> reactor.timers().schedule(reactor.nowNs() + 2_000_000, handler, 1));
            reactor.start();
            assertThat(fired.await(20, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void shouldCloseOnlyTheChannelWhoseHandlerThrowsAndGoOn() throws Exception {
        final Pipe bad = Pipe.open();
        final Pipe good = Pipe.open();
        try (Reactor reactor = new Reactor(new ReactorOptions().errorHandler(errors::add))) {
            final AtomicInteger goodReads = new AtomicInteger();
            final ByteBuffer buffer = ByteBuffer.allocateDirect(64);
            reactor.register(bad.source(), SelectionKey.OP_READ, (key, nowNs) -> {
                throw new IllegalStateException("handler bug");
            });
            reactor.register(good.source(), SelectionKey.OP_READ, (key, nowNs) -> {
                buffer.clear();
                try {
                    goodReads.addAndGet(((Pipe.SourceChannel)key.channel()).read(buffer));
                } catch (final IOException ex) {
                    throw new IllegalStateException(ex);
                }
            });
            bad.sink().write(ByteBuffer.wrap(new byte[] {1}));
            good.sink().write(ByteBuffer.wrap(new byte[] {1, 2}));
            for (int i = 0; i < 100 && goodReads.get() < 2; i++) {
                reactor.doWork();
            }
            good.sink().write(ByteBuffer.wrap(new byte[] {3}));
            for (int i = 0; i < 100 && goodReads.get() < 3; i++) {
                reactor.doWork();
            }
            assertThat(goodReads.get()).isEqualTo(3);
            assertThat(bad.source().isOpen()).isFalse();
            assertThat(errors).hasSize(1);
            assertThat(errors.get(0)).hasMessageContaining("handler failed").hasRootCauseMessage("handler bug");
        } finally {
            bad.sink().close();
            good.sink().close();
        }
    }

    @Test
    void shouldReadTheClockOncePerCycleAndPassItDown() {
        final long[] clock = {1_000};
        final AtomicInteger reads = new AtomicInteger();
        final NanoClock counting = () -> {
            reads.incrementAndGet();
            return clock[0];
        };
        try (Reactor reactor = new Reactor(new ReactorOptions().clock(counting).errorHandler(errors::add))) {
            final long[] seen = new long[2];
            reactor.add(nowNs -> {
                seen[0] = nowNs;
                return 0;
            });
            reactor.add(nowNs -> {
                seen[1] = nowNs;
                return 1;
            });
            final int before = reads.get();
            clock[0] = 5_000;
            assertThat(reactor.doWork()).isEqualTo(1);
            assertThat(reads.get() - before).isEqualTo(1);
            assertThat(seen).containsExactly(5_000, 5_000);
            assertThat(reactor.nowNs()).isEqualTo(5_000);
        }
    }

    @Test
    void shouldPollCycleStartPollablesBeforeTimersAndTheOtherPollablesAndStopWhenRemoved() {
        try (Reactor reactor = new Reactor(new ReactorOptions().errorHandler(errors::add))) {
            final List<String> order = new CopyOnWriteArrayList<>();
            final Pollable late = nowNs -> {
                order.add("pollable");
                return 0;
            };
            final Pollable early = nowNs -> {
                order.add("cycle start");
                return 1;
            };
            reactor.add(late);
            reactor.addAtCycleStart(early);
            reactor.timers().schedule(0, (timerId, context, nowNs) -> order.add("timer"), 0);

            assertThat(reactor.doWork()).as("the work of the cycle-start pollable counts").isGreaterThanOrEqualTo(1);
            assertThat(order).containsExactly("cycle start", "timer", "pollable");

            order.clear();
            assertThat(reactor.remove(early)).isTrue();
            assertThat(reactor.remove(early)).as("removed once").isFalse();
            reactor.doWork();
            assertThat(order).containsExactly("pollable");
            assertThat(errors).isEmpty();
        }
    }

    @Test
    void shouldRunDutyCycleWithoutAllocating() throws Exception {
        final Pipe pipe = Pipe.open();
        try (Reactor reactor = new Reactor(new ReactorOptions().errorHandler(errors::add))) {
            final ByteBuffer in = ByteBuffer.allocateDirect(64);
            final ByteBuffer out = ByteBuffer.allocateDirect(8);
            final long[] bytesRead = {0};
            reactor.register(pipe.source(), SelectionKey.OP_READ, (key, nowNs) -> {
                in.clear();
                try {
                    bytesRead[0] += pipe.source().read(in);
                } catch (final IOException ex) {
                    throw new IllegalStateException(ex);
                }
            });
            final TimerHandler timer = (timerId, cookie, nowNs) -> {
            };
            final Runnable task = () -> {
            };
            reactor.add(nowNs -> {
                reactor.timers().schedule(nowNs + 10_000, timer, 0);
                return 0;
            });
            // zero tolerance once the JIT has settled: the first whole set of 20 windows that allocates nothing, at most 5
            final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(50_000, 20_000, 20, 5, () -> {
                out.clear().putLong(42).flip();
                try {
                    pipe.sink().write(out);
                } catch (final IOException ex) {
                    throw new IllegalStateException(ex);
                }
                reactor.execute(task);
                reactor.doWork();
            });
            assertThat(bytesRead[0]).isGreaterThan(0);
            assertThat(measured.totalBytes()).as("bytes in the last set of %d (windows of 20 000 warm duty cycles)",
                measured.sets()).isZero();
        } finally {
            pipe.sink().close();
        }
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldPinItsThreadToTheConfiguredCpu() throws Exception {
        Needs.platform("thread affinity", ThreadAffinity::unavailableReason);
        final int cpu = Runtime.getRuntime().availableProcessors() - 1;
        try (Reactor reactor = new Reactor(new ReactorOptions().cpu(cpu).errorHandler(errors::add))) {
            reactor.start();
            final CompletableFuture<Integer> ranOn = new CompletableFuture<>();
            for (int i = 0; i < 10; i++) {
                reactor.execute(() -> ranOn.complete(ThreadAffinity.currentCpu()));
            }
            assertThat(ranOn.get(10, TimeUnit.SECONDS)).isEqualTo(cpu);
        }
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldReportWhyPinningFailedAndRunAnyway() throws Exception {
        Needs.platform("thread affinity", ThreadAffinity::unavailableReason);
        final int missingCpu = 1000; // beyond any CPU of this machine but inside cpu_set_t
        try (Reactor reactor = new Reactor(new ReactorOptions().cpu(missingCpu).errorHandler(errors::add))) {
            reactor.start();
            final CountDownLatch ran = new CountDownLatch(1);
            reactor.execute(ran::countDown);
            assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(errors).hasSize(1);
        assertThat(errors.get(0)).hasMessageContaining("runs unpinned").hasMessageContaining("cpu=1000");
    }

    @Test
    void shouldStopEvenWhenClosedBeforeItsThreadBegan() {
        for (int i = 0; i < 50; i++) {
            final Reactor reactor = new Reactor(new ReactorOptions().errorHandler(errors::add));
            final Thread thread = reactor.start();
            reactor.close(); // races with the thread's start: must neither hang nor leave the thread running
            assertThat(thread.isAlive()).isFalse();
        }
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldReleaseChannelsWhenClosedFromAnotherThread() throws Exception {
        final Pipe pipe = Pipe.open();
        final Reactor reactor = new Reactor(new ReactorOptions().errorHandler(errors::add));
        final CountDownLatch registered = new CountDownLatch(1);
        reactor.execute(() -> {
            reactor.register(pipe.source(), SelectionKey.OP_READ, (key, nowNs) -> {
            });
            registered.countDown();
        });
        final Thread thread = reactor.start();
        assertThat(registered.await(10, TimeUnit.SECONDS)).isTrue();
        reactor.close();
        assertThat(thread.isAlive()).isFalse();
        assertThat(pipe.source().isOpen()).isFalse();
        assertThat(reactor.isClosed()).isTrue();
        pipe.sink().close();
    }

    @Test
    void shouldEndTheCycleOfACallerDrivenReactorThatItsOwnTaskTimerOrPollableClosed() {
        final Reactor byTask = new Reactor(new ReactorOptions().errorHandler(errors::add));
        assertThat(byTask.execute(byTask::close)).isTrue();
        final Reactor byTimer = new Reactor(new ReactorOptions().errorHandler(errors::add));
        byTimer.timers().schedule(byTimer.nowNs(), (timerId, cookie, nowNs) -> byTimer.close(), 0);
        final Reactor byPollable = new Reactor(new ReactorOptions().errorHandler(errors::add));
        final AtomicInteger after = new AtomicInteger();
        byPollable.add(nowNs -> {
            byPollable.close();
            return 1;
        });
        byPollable.add(nowNs -> after.incrementAndGet());

        for (final Reactor reactor : List.of(byTask, byTimer, byPollable)) {
            reactor.doWork(); // closed inside: the rest of the cycle leaves the closed selector alone
            assertThat(reactor.isClosed()).isTrue();
        }
        assertThat(after).as("no pollable runs after the close").hasValue(0);
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldGoOnWhenItsErrorHandlerThrows() {
        final AtomicInteger reported = new AtomicInteger();
        final AtomicInteger polled = new AtomicInteger();
        final PrintStream savedErr = System.err;
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try (Reactor reactor = new Reactor(new ReactorOptions().errorHandler(error -> {
            reported.incrementAndGet();
            throw new IllegalStateException("thrown by the test's error handler");
        }))) {
            reactor.add(nowNs -> {
                throw new IllegalStateException("thrown by the test's pollable");
            });
            reactor.add(nowNs -> polled.incrementAndGet());

            reactor.doWork();
            reactor.doWork();

            assertThat(reported).hasValue(2);
            assertThat(polled).as("the pollable after the failing one still runs").hasValue(2);
        } finally {
            System.setErr(savedErr);
        }
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("the reactor's error handler threw",
            "thrown by the test's error handler", "thrown by the test's pollable");
    }

    @Test
    void shouldPrintAnErrorHandlerThatThrowsEveryCycleOnceThenAtMostALineASecond() {
        final PrintStream savedErr = System.err;
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        final int cycles = 2_000;
        final long began = System.nanoTime();
        try (Reactor reactor = new Reactor(new ReactorOptions().errorHandler(error -> {
            throw new IllegalStateException("thrown every cycle by the test's error handler");
        }))) {
            reactor.add(nowNs -> {
                throw new IllegalStateException("thrown every cycle by the test's pollable");
            });
            for (int i = 0; i < cycles; i++) {
                reactor.doWork();
            }
        } finally {
            System.setErr(savedErr);
        }
        final long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - began);
        final String printed = err.toString(StandardCharsets.UTF_8);

        assertThat(printed.lines().filter(line -> line.startsWith(IllegalStateException.class.getName()
            + ": the reactor's error handler threw")).count()).as("traces printed in full").isOne();
        assertThat(printed.lines().filter(line -> line.startsWith("... repeated")).count())
            .as("lines summing the repeats, in %d s", seconds).isLessThanOrEqualTo(seconds + 1);
        assertThat(printed.lines().count()).as("all lines printed").isLessThan(200);
    }

    @Test
    void shouldRefuseTasksOnceClosed() {
        final Reactor reactor = new Reactor(new ReactorOptions().errorHandler(errors::add));
        reactor.close();
        assertThat(reactor.execute(() -> {
        })).isFalse();
    }

    @Test
    void shouldReportAnExceptionEscapingAPollableAndGoOnWithTheOthers() throws Exception {
        try (Reactor reactor = new Reactor(new ReactorOptions().errorHandler(errors::add))) {
            final AtomicInteger polled = new AtomicInteger();
            final AtomicInteger thrown = new AtomicInteger();
            final Pollable failing = new Pollable() {
                @Override
                public int doWork(final long nowNs) {
                    thrown.incrementAndGet();
                    throw new IllegalStateException("boom");
                }

                @Override
                public String toString() {
                    return "failing-pollable";
                }
            };
            reactor.add(failing);
            reactor.add(nowNs -> {
                polled.incrementAndGet();
                return 0;
            });
            final CountDownLatch ran = new CountDownLatch(1);
            final Thread thread = reactor.start();
            reactor.execute(ran::countDown);
            assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (polled.get() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            // the loop survived the failures: the second pollable ran in the same cycles, the thread is alive
            assertThat(polled.get()).isGreaterThanOrEqualTo(3);
            assertThat(thread.isAlive()).isTrue();
            reactor.execute(() -> reactor.remove(failing));
        }
        assertThat(errors).isNotEmpty();
        assertThat(errors.getFirst()).hasMessageContaining("failing-pollable").hasRootCauseMessage("boom");
    }
}
