package dev.peregrine.bench.session;

import dev.peregrine.bench.run.RunResult;
import dev.peregrine.bench.run.RunSpec;
import dev.peregrine.bench.testing.InMemoryBenchTransport;
import dev.peregrine.bench.transports.Transports;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(120)
class BenchSessionTest {
    @Test
    void shouldPrintWhatWasMeasuredSoFarWhenInterrupted() throws Exception {
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8);
        final AtomicReference<RunResult> result = new AtomicReference<>();
        try (BenchSession session = new BenchSession(out, System.err, true, false)) {
            final Thread runner = new Thread(() -> result.set(session.pingpong(new RunSpec("pingpong",
                Transports.byName(InMemoryBenchTransport.NAME), 32, 1_000_000_000L, 100, 0, 1, true, -1, -1, false,
                "127.0.0.1"))));
            runner.start();
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while (session.progress().done() < 300 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }

            session.stopAndPrint();
            runner.join(30_000);

            assertThat(result.get().status()).isEqualTo(RunResult.Status.PARTIAL);
            assertThat(result.get().messages()).isPositive().isLessThan(1_000_000_000L);
            assertThat(result.get().note()).contains("interrupted");
            assertThat(session.stopping()).isTrue();
        }
        final String printed = captured.toString(StandardCharsets.UTF_8);
        assertThat(printed).contains("Interrupted. What was measured so far", "PARTIAL", "~ one way", "round trip");
    }
}
