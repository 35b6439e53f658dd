package dev.peregrine.examples;

import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A reactor on its own thread, and a way to ask it questions from the test thread safely.
 */
final class ExampleRig {
    private ExampleRig() {
    }

    static Reactor startReactor() {
        final Reactor reactor = new Reactor(new ReactorOptions().name("example-test"));
        reactor.start();
        return reactor;
    }

    /** Runs on the reactor thread and waits for the answer. */
    static <T> T onReactor(final Reactor reactor, final Supplier<T> question) throws Exception {
        final CompletableFuture<T> answer = new CompletableFuture<>();
        if (!reactor.execute(() -> answer.complete(question.get()))) {
            throw new IllegalStateException("reactor queue full");
        }
        return answer.get(10, TimeUnit.SECONDS);
    }

    /** Asks until the reactor thread says yes, for a bounded time. */
    static void awaitOnReactor(final Reactor reactor, final Supplier<Boolean> condition) throws Exception {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!onReactor(reactor, condition)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not reached on the reactor thread");
            }
            Thread.sleep(5);
        }
    }
}
