package dev.peregrine.bench.reconnect;

import dev.peregrine.peers.support.FreePorts;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.reactor.SelectorBoxing;
import org.HdrHistogram.Histogram;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@code bench reconnect --restart}: the server in a child JVM on a file-backed store ({@link ReconnectServerChild}),
 * killed with -9 every {@code restartEvery} (once the client has resumed after the previous kill) and started again
 * on its store; the client in this JVM on a reactor thread. Reports the same figures as the in-process run, the time
 * from each kill to the restarted server listening apart.
 */
public final class RestartRunner {
    private static final long START_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);

    private RestartRunner() {
    }

    /**
     * Runs the stream with kills.
     *
     * @param spec what to run ({@link ReconnectRunner.Spec#cutEveryNs()} is the time between kills)
     * @param store the store file (made if missing; a leftover of another run is started afresh only if it is not a
     *     store of this session)
     * @param out where the lines go
     * @return the result
     * @throws IOException if a child cannot be started
     * @throws InterruptedException if interrupted while waiting
     */
    public static ReconnectResult run(final ReconnectRunner.Spec spec, final Path store, final PrintStream out)
        throws IOException, InterruptedException {
        final int port = FreePorts.block("127.0.0.1", 1);
        java.nio.file.Files.deleteIfExists(store); // the stream starts at 1
        final CutSchedule kills = new CutSchedule(spec.cutEveryNs(), false);
        kills.hops(CutHops.forSpec(spec), null, null); // the publisher is the child: the lag is not known here
        final Histogram restart = new Histogram(TimeUnit.SECONDS.toNanos(120), 3);
        Process child = start(spec, store, port);
        String failure = awaitListening(child);
        try (Reactor reactor = new Reactor(new ReactorOptions().name("reconnect-client")
                .idleStrategy(ReconnectRunner.idle(spec.busySpin())))) {
            final ReconnectClient client = new ReconnectClient(reactor, new InetSocketAddress("127.0.0.1", port),
                spec.count(), kills, spec.skip(), spec.clientReceiveBuffer());
            client.start();
            reactor.start();
            kills.start(System.nanoTime());
            final long start = System.nanoTime();
            final long deadline = start + spec.deadlineNs() + 10 * START_TIMEOUT_NS;
            long nextLine = start + TimeUnit.SECONDS.toNanos(1);
            long resumedSeen = -1;
            long resumedNs = start;
            while (failure == null && client.stopped() == null) {
                final long now = System.nanoTime();
                if (now - deadline > 0) {
                    failure = "not finished by the deadline: delivered " + client.delivered();
                    break;
                }
                if (client.delivered() >= spec.count()) {
                    kills.over(); // the rest is End of Session
                }
                if (kills.resumed() != resumedSeen) {
                    resumedSeen = kills.resumed();
                    resumedNs = now;
                }
                // every interval of running: a restart that took longer than the interval is not followed by a kill
                // the moment the client resumes
                if (kills.due(CutSchedule.SERVER, now) && now - resumedNs >= spec.cutEveryNs()) {
                    kills.cut();
                    child.destroyForcibly(); // SIGKILL
                    child.waitFor(10, TimeUnit.SECONDS);
                    child = start(spec, store, port);
                    failure = awaitListening(child);
                    restart.recordValue(Math.min(restart.getHighestTrackableValue(), System.nanoTime() - now));
                }
                Thread.sleep(1);
                if (now - nextLine > 0) {
                    nextLine = System.nanoTime() + TimeUnit.SECONDS.toNanos(1); // one line, however long a restart held the loop
                    out.println(String.format(Locale.ROOT, "  %.0f s: delivered %d, kills %d",
                        (now - start) / 1e9, client.delivered(), kills.made()));
                    out.flush();
                }
            }
            if (failure == null && !client.endedAtEndOfSession()) {
                failure = "the client stopped: " + client.stopped();
            }
            ReconnectRunner.closeOn(reactor, client::close);
            return new ReconnectResult(spec.count(), client.delivered(), client.lost(), client.repeated(),
                client.foreign(), kills.made(), client.connects() - 1, client.skippedRepeats(), client.resume(),
                restart, failure, client.breakdown());
        } finally {
            child.getOutputStream().close(); // the child ends when its stdin closes
            if (!child.waitFor(10, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        }
    }

    private static Process start(final ReconnectRunner.Spec spec, final Path store, final int port) throws IOException {
        final List<String> command = List.of(ProcessHandle.current().info().command().orElse("java"),
            "--enable-native-access=ALL-UNNAMED", SelectorBoxing.JVM_OPTION, "-cp", System.getProperty("java.class.path"),
            ReconnectServerChild.class.getName(), store.toString(), Integer.toString(port), Long.toString(spec.count()),
            Long.toString(spec.rate()), Boolean.toString(spec.busySpin()));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    /** Waits for the child's {@code LISTENING} line; returns why it did not come, or null. */
    private static String awaitListening(final Process child) throws IOException {
        final BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(),
            StandardCharsets.UTF_8));
        final long deadline = System.nanoTime() + START_TIMEOUT_NS;
        while (System.nanoTime() < deadline) {
            final String line = lines.readLine(); // the child prints its line, or dies and closes the pipe
            if (line == null) {
                return "the server JVM ended before it listened (exit " + exitOf(child) + ")";
            }
            if (line.startsWith("LISTENING")) {
                return null;
            }
            if (line.startsWith("FAILED")) {
                return "the server JVM: " + line;
            }
        }
        return "the server JVM did not listen in " + START_TIMEOUT_NS / 1_000_000_000L + " s";
    }

    private static String exitOf(final Process child) {
        try {
            return child.waitFor(5, TimeUnit.SECONDS) ? Integer.toString(child.exitValue()) : "unknown";
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }
}
