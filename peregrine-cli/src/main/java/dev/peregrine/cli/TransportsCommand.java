package dev.peregrine.cli;

import dev.peregrine.bench.run.Failures;
import dev.peregrine.bench.transports.Transports;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import picocli.CommandLine.Command;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code bench transports}: lists the transports found, with their configuration and availability.
 */
@Command(name = "transports", mixinStandardHelpOptions = true, description = "List the transports found and whether they can run here.")
public final class TransportsCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        for (final BenchTransport t : Transports.all()) {
            String why;
            try {
                why = t.unavailableReason(new BenchConfig("127.0.0.1", 40000, 256,
                    Path.of(System.getProperty("java.io.tmpdir")), true));
            } catch (final RuntimeException | LinkageError ex) {
                why = "availability check failed: " + Failures.oneLine(ex);
            }
            System.out.printf("%-12s %-4s %-9s %s%s%n", t.name(), t.path(), Transports.isPeregrine(t) ? "peregrine" : "peer",
                t.description(), why == null ? "" : "  [not available: " + why + "]");
        }
        return 0;
    }
}
