package dev.peregrine.peers;

import org.HdrHistogram.Histogram;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ServiceLoader;

/**
 * A rough in-process ping-pong of every registered peer (responder on its own threads, client on this one),
 * printing p50/p99/p99.9 round trip; the benchmark harness does the real measurement. Not a test.
 *
 * <p>Arguments: {@code [size] [warm-up round trips] [measured round trips] [transport names...]}.
 */
public final class PeerLatencyProbe {
    private PeerLatencyProbe() {
    }

    /**
     * Runs the probe.
     *
     * @param args size, warm-up, measured, then optional transport names
     * @throws Exception if a transport fails
     */
    public static void main(final String[] args) throws Exception {
        final int size = args.length > 0 ? Integer.parseInt(args[0]) : 256;
        final int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
        final int measured = args.length > 2 ? Integer.parseInt(args[2]) : 100_000;
        final java.util.Set<String> only = new java.util.HashSet<>(java.util.Arrays.asList(args).subList(Math.min(3, args.length), args.length));
        for (final BenchTransport transport : ServiceLoader.load(BenchTransport.class)) {
            if (!only.isEmpty() && !only.contains(transport.name())) {
                continue;
            }
            final Path dir = Files.createTempDirectory("peer-probe");
            final BenchConfig config = new BenchConfig("127.0.0.1", BenchTransportConformanceTest.freePort(), size, dir, true);
            final String reason = transport.unavailableReason(config);
            if (reason != null) {
                System.out.printf("%-10s unavailable: %s%n", transport.name(), reason);
                continue;
            }
            final Histogram histogram = new Histogram(60_000_000_000L, 3);
            try (Responder responder = transport.startResponder(config); PingClient client = transport.connect(config)) {
                for (long i = 0; i < warmup; i++) {
                    client.send(i);
                    client.receive();
                }
                for (long i = 0; i < measured; i++) {
                    final long start = System.nanoTime();
                    client.send(i);
                    client.receive();
                    histogram.recordValue(System.nanoTime() - start);
                }
                if (responder.messages() != warmup + measured) {
                    System.out.printf("%s: responder counted %d messages%n", transport.name(), responder.messages());
                }
            }
            System.out.printf("%-10s size %d: p50 %.1f us  p99 %.1f us  p99.9 %.1f us  max %.1f us  (%d round trips)%n",
                transport.name(), size, histogram.getValueAtPercentile(50) / 1e3, histogram.getValueAtPercentile(99) / 1e3,
                histogram.getValueAtPercentile(99.9) / 1e3, histogram.getMaxValue() / 1e3, histogram.getTotalCount());
        }
    }
}
