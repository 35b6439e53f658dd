package dev.peregrine.reactor;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * {@link ErrorHandler#STANDARD_ERROR}: prints the first occurrence of each distinct error with its stack trace, and of
 * its repeats at most one line a second, with how many there were, so that an error met every duty cycle (a failing
 * socket, a bad peer's malformed packets) neither floods standard error nor slows the reactor thread with output.
 *
 * <p>Two errors are the same when they are of the same class, thrown at the same place (their first stack frame), with
 * root causes alike in both; their messages are not compared, as they often name a sequence number or an address that
 * changes from one occurrence to the next. An error without a stack trace is told apart by its message instead. The
 * last {@value #MAX_DISTINCT} distinct errors are remembered, the least recently met forgotten first (with its pending
 * count, if any, printed then): one met again after that is printed whole again.
 *
 * <p>A repeat's line reads {@code ... repeated 12345 times in the last 1.0 s: <class>: <message>} of the latest one;
 * it is printed by the first repeat at least {@value #SUMMARY_INTERVAL_NS} ns after the previous line (or the stack
 * trace) for that error, so repeats that stop are summed up by the next one, if any. Thread-safe (synchronized),
 * so several reactors may share it.
 */
final class StandardErrorHandler implements ErrorHandler {
    /** How many distinct errors are remembered. */
    static final int MAX_DISTINCT = 64;
    /** The least time between two lines about one error's repeats. */
    static final long SUMMARY_INTERVAL_NS = 1_000_000_000L;

    private final LongSupplier clock;
    private final Supplier<PrintStream> out;
    private final Map<Key, Seen> seen = new LinkedHashMap<>(2 * MAX_DISTINCT, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(final Map.Entry<Key, Seen> eldest) {
            if (size() <= MAX_DISTINCT) {
                return false;
            }
            summarise(eldest.getValue(), clock.getAsLong());
            return true;
        }
    };

    /** The shared default: {@link System#nanoTime()}, and whatever {@link System#err} is when an error comes. */
    StandardErrorHandler() {
        this(System::nanoTime, () -> System.err);
    }

    /**
     * A handler with its own clock and output, for tests.
     *
     * @param clock nanoseconds, monotonic
     * @param out where errors are printed
     */
    StandardErrorHandler(final LongSupplier clock, final PrintStream out) {
        this(clock, () -> out);
    }

    private StandardErrorHandler(final LongSupplier clock, final Supplier<PrintStream> out) {
        this.clock = clock;
        this.out = out;
    }

    @Override
    public synchronized void onError(final Throwable error) {
        final long nowNs = clock.getAsLong();
        final Key key = Key.of(error);
        final Seen known = seen.get(key);
        if (known == null) {
            seen.put(key, new Seen(error, nowNs));
            error.printStackTrace(out.get());
            return;
        }
        known.latest = error;
        known.repeats++;
        if (nowNs - known.sinceNs >= SUMMARY_INTERVAL_NS) {
            summarise(known, nowNs);
        }
    }

    private void summarise(final Seen known, final long nowNs) {
        if (known.repeats == 0) {
            return;
        }
        out.get().printf("... repeated %d times in the last %.1f s: %s%n", known.repeats,
            (nowNs - known.sinceNs) / 1e9, known.latest);
        known.repeats = 0;
        known.sinceNs = nowNs;
    }

    /** What makes two errors the same: class and first frame of the error and of its root cause. */
    private record Key(Class<?> type, Object where, Class<?> rootType, Object rootWhere) {
        static Key of(final Throwable error) {
            Throwable root = error;
            for (int depth = 0; root.getCause() != null && root.getCause() != root && depth < 32; depth++) {
                root = root.getCause();
            }
            return new Key(error.getClass(), where(error), root.getClass(), where(root));
        }

        /** The first stack frame, or for an error without a stack trace its message. */
        private static Object where(final Throwable error) {
            final StackTraceElement[] frames = error.getStackTrace();
            return frames.length > 0 ? frames[0] : error.getMessage();
        }
    }

    /** One distinct error: the latest occurrence, and the repeats since the last line printed about it. */
    private static final class Seen {
        private Throwable latest;
        private long repeats;
        private long sinceNs;

        Seen(final Throwable first, final long nowNs) {
            this.latest = first;
            this.sinceNs = nowNs;
        }
    }
}
