package dev.peregrine.bench.run;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.StreamReceiver;
import org.HdrHistogram.Histogram;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The receiving end of a throughput run in a JVM of its own ({@code responder --stream}). Protocol on
 * stdout: {@code READY} once the receiver listens; {@code STOP} when the measured window is over (or the
 * receiver failed), so the sender stops; after the sender's {@code SENT n} on stdin and the drain of all
 * {@code n} messages, one {@code RESULT} line ({@link Result#toLine}) and one {@code STATS} line with this
 * JVM's JIT and GC counters. It exits when its stdin ends.
 */
public final class StreamReceiverChild {
    private StreamReceiverChild() {
    }

    /**
     * What the receiver measured.
     *
     * @param received messages received in all
     * @param measured messages delivered in the window
     * @param lost messages lost in the window (a lossy transport only)
     * @param windowNs length of the window
     * @param windowEnded whether the window ended as planned (else it was cut short)
     * @param allocatedPerMessage bytes the receiving thread allocated per message in the window, or NaN
     * @param failure why the receiver stopped early, or empty
     * @param recovery recovery latencies of the gaps filled in the window, or null without a recovery layer
     */
    record Result(long received, long measured, long lost, long windowNs, boolean windowEnded,
                  double allocatedPerMessage, String failure, Histogram recovery) {
        Result(final long received, final long measured, final long lost, final long windowNs, final boolean windowEnded,
               final double allocatedPerMessage, final String failure) {
            this(received, measured, lost, windowNs, windowEnded, allocatedPerMessage, failure, null);
        }

        static Result of(final StreamChecker checker) {
            final Throwable error = checker.failure.get();
            return new Result(checker.received, checker.measured(), checker.lostInWindow(), (long)(checker.seconds() * 1e9),
                checker.endNs != 0, checker.allocatedPerMessage(), error == null ? "" : Failures.oneLine(error),
                checker.recovering ? checker.recovery.copy() : null);
        }

        /**
         * The line the child prints; the failure comes last and may hold spaces.
         *
         * @return {@code RESULT received=.. measured=.. lost=.. window_ns=.. ended=.. alloc=.. [recovery=..] failure=..},
         *     the recovery histogram as {@link RecoveryLatency#encode}
         */
        String toLine() {
            return String.format(Locale.ROOT, "RESULT received=%d measured=%d lost=%d window_ns=%d ended=%b alloc=%s%s failure=%s",
                received, measured, lost, windowNs, windowEnded, Double.toString(allocatedPerMessage),
                recovery == null ? "" : " recovery=" + RecoveryLatency.encode(recovery), failure);
        }

        /**
         * Parses {@link #toLine()}.
         *
         * @param line the line
         * @return the result
         * @throws IllegalArgumentException if it is not a RESULT line
         */
        static Result parse(final String line) {
            final int failureAt = line == null ? -1 : line.indexOf(" failure=");
            if (failureAt < 0 || !line.startsWith("RESULT ")) {
                throw new IllegalArgumentException("line=" + line + " is not a RESULT line");
            }
            long received = -1;
            long measured = -1;
            long lost = 0;
            long windowNs = -1;
            boolean ended = false;
            double allocated = Double.NaN;
            Histogram recovery = null;
            for (final String field : line.substring("RESULT ".length(), failureAt).trim().split("\\s+")) {
                final int eq = field.indexOf('=');
                final String key = eq > 0 ? field.substring(0, eq) : field;
                final String value = eq > 0 ? field.substring(eq + 1) : "";
                try {
                    switch (key) {
                        case "received" -> received = Long.parseLong(value);
                        case "measured" -> measured = Long.parseLong(value);
                        case "lost" -> lost = Long.parseLong(value);
                        case "window_ns" -> windowNs = Long.parseLong(value);
                        case "ended" -> ended = Boolean.parseBoolean(value);
                        case "alloc" -> allocated = Double.parseDouble(value);
                        case "recovery" -> recovery = RecoveryLatency.decode(value);
                        default -> {
                            // a newer child may say more
                        }
                    }
                } catch (final NumberFormatException ex) {
                    throw new IllegalArgumentException("field=" + field + " in line=" + line, ex);
                }
            }
            return new Result(received, measured, lost, windowNs, ended, allocated,
                line.substring(failureAt + " failure=".length()), recovery);
        }
    }

    /**
     * Runs the receiving end until stdin ends.
     *
     * @param out stdout, for the protocol
     * @param transport the transport
     * @param config its configuration
     * @param warmup warm-up messages
     * @param messages measured messages when counted
     * @param window the timed window, or {@link ThroughputRunner.Window#COUNTED}
     * @return the exit code
     */
    public static int run(final PrintStream out, final BenchTransport transport, final BenchConfig config, final long warmup,
                   final long messages, final ThroughputRunner.Window window) {
        final RuntimeCounters before = RuntimeCounters.now();
        final StreamChecker checker = new StreamChecker(warmup, messages, window, transport.name(), null,
            transport.lossy());
        try {
            // closed by the draining thread when it is done: see ThroughputRunner.drainAndClose
            final StreamReceiver receiver = transport.startStreamReceiver(config);
            final Thread draining = new Thread(() -> ThroughputRunner.drainAndClose(checker, receiver),
                "bench-stream-receiver");
            draining.setDaemon(true);
            out.println("READY port=" + config.port() + " pid=" + ProcessHandle.current().pid());
            out.flush();
            draining.start();
            final Thread control = new Thread(() -> readControl(checker), "bench-stream-control");
            control.setDaemon(true);
            control.start();
            // waits on the checker's signal rather than polling: a thread that woke every millisecond took the
            // CPU from a spinning thread a thousand times a second, on a machine with no core to spare
            boolean stopPrinted = false;
            while (!stopPrinted && draining.isAlive()) {
                if (checker.awaitStop(100)) {
                    out.println("STOP");
                    out.flush();
                    stopPrinted = true;
                }
            }
            draining.join();
            if (!stopPrinted) {
                out.println("STOP");
            }
            out.println(Result.of(checker).toLine());
            out.println(new ResponderStats(checker.received, -1, RuntimeCounters.now().since(before)).toLine());
            out.flush();
            control.join(TimeUnit.SECONDS.toMillis(30));
            return 0;
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
            return 2;
        } catch (final Exception | LinkageError ex) {
            out.println("FAILED " + Failures.oneLine(ex));
            out.flush();
            return 2;
        }
    }

    /** Reads {@code SENT n} from stdin; the end of stdin stops the drain. */
    private static void readControl(final StreamChecker checker) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("SENT ")) {
                    checker.total = Long.parseLong(line.substring("SENT ".length()).trim());
                }
            }
        } catch (final IOException | NumberFormatException ex) {
            // a broken control channel ends the run like the end of stdin
        }
        checker.stop = true;
    }
}
