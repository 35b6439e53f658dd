package dev.peregrine.peers.support;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.reactor.BackoffIdleStrategy;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.IdleStrategy;

import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;

/**
 * Small shared helpers: the idle strategy a waiting side uses, stopping a thread with a bounded wait, and closing
 * a socket or server on the way out.
 */
public final class PeerSupport {
    /** How long a close waits for a thread of its own to end. */
    public static final Duration JOIN_TIMEOUT = Duration.ofSeconds(5);

    private PeerSupport() {
    }

    /**
     * The idle strategy for a side that waits for work.
     *
     * @param config the run's configuration
     * @return a busy spin if {@link BenchConfig#busySpin()} is set, else back-off (100 spins, 10 yields, then
     *     parks from 1 to 100 µs: short enough that an idle responder still answers within a park)
     */
    public static IdleStrategy idleStrategy(final BenchConfig config) {
        return config.busySpin() ? new BusySpinIdleStrategy() : new BackoffIdleStrategy(100, 10, 1_000, 100_000);
    }

    /**
     * Waits a bounded time for a thread to end.
     *
     * @param thread the thread, or null
     * @throws IllegalStateException if it is still alive after {@link #JOIN_TIMEOUT}
     */
    public static void join(final Thread thread) {
        if (thread == null || thread == Thread.currentThread()) {
            return;
        }
        try {
            if (!thread.join(JOIN_TIMEOUT)) {
                throw new IllegalStateException("thread=" + thread.getName() + " still alive after " + JOIN_TIMEOUT);
            }
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Starts a daemon thread (a benchmark must never hang the JVM on exit).
     *
     * @param name the thread name
     * @param body what it runs
     * @return the started thread
     */
    public static Thread start(final String name, final Runnable body) {
        final Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /**
     * Closes, on the way out, ignoring what the close throws (the connection or server is being given up anyway).
     *
     * @param closeable what to close, or null
     */
    public static void closeQuietly(final Closeable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (final IOException ignored) {
            // best effort on the way out
        }
    }
}
