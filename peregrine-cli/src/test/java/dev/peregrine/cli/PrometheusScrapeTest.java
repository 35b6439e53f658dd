package dev.peregrine.cli;

import dev.peregrine.counters.Counter;
import dev.peregrine.counters.CounterTypes;
import dev.peregrine.counters.CountersManager;
import dev.peregrine.peers.support.FreePorts;
import dev.peregrine.testkit.Needs;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real Prometheus server scrapes {@code ./peregrine stat --serve} and a counter is read back through its HTTP API:
 * Debian's {@code /usr/bin/prometheus} (not the system service) with a configuration, data directory and port of
 * this test's own. Prometheus fails a scrape whose content type it does not know, so a value read back proves the
 * exposition was taken as OpenMetrics.
 */
@Tag("slow")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PrometheusScrapeTest {
    private static final long SELF = ProcessHandle.current().pid();
    /** Prometheus scrapes every second here; a wait is this many times longer than it should take. */
    private static final Duration WAIT = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    @Test
    void shouldBeScrapedByARealPrometheusAndReadBackThroughItsQueryApi() throws Exception {
        final Path prometheus = prometheusBinary();
        Needs.installable("prometheus", prometheus != null, "no prometheus binary on PATH or at /usr/bin/prometheus");

        final Path counters = Files.createDirectory(dir.resolve("counters"));
        try (CountersManager manager = CountersManager.create(counters.resolve(SELF + CountersManager.FILE_SUFFIX), 16, 0)) {
            final Counter sent = manager.allocate(CounterTypes.TCP_MESSAGES_OUT, "scrape");
            sent.add(4242);

            final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            final CommandLine commandLine = Main.commandLine();
            commandLine.setOut(new PrintWriter(new LineQueue(lines), true));
            final AtomicInteger code = new AtomicInteger(-1);
            final Thread serving = new Thread(() -> code.set(commandLine.execute("stat", "--dir", counters.toString(),
                "--serve", "0")), "stat-serve");
            serving.start();
            Process server = null;
            try {
                final String line = lines.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertThat(line).as("the serving line").isNotNull();
                final Matcher url = Pattern.compile("serving http://(127\\.0\\.0\\.1:\\d+)/metrics ").matcher(line);
                assertThat(url.find()).as(line).isTrue();

                final int apiPort = freePort();
                final Path config = dir.resolve("prometheus.yml");
                Files.writeString(config, """
                    global:
                      scrape_interval: 1s
                      scrape_timeout: 1s
                    scrape_configs:
                      - job_name: peregrine
                        static_configs:
                          - targets: ['%s']
                    """.formatted(url.group(1)));
                server = new ProcessBuilder(prometheus.toString(), "--config.file=" + config,
                    "--storage.tsdb.path=" + Files.createDirectory(dir.resolve("data")),
                    "--web.listen-address=127.0.0.1:" + apiPort)
                    .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();

                final String query = "peregrine_tcp_messages_out_total{pid=\"" + SELF + "\"}";
                final String answer = awaitResult(server, apiPort, query);
                assertThat(answer).as(answer)
                    .contains("\"__name__\":\"peregrine_tcp_messages_out_total\"")
                    .contains("\"job\":\"peregrine\"")
                    .contains("\"pid\":\"" + SELF + "\"")
                    .contains("\"label\":\"scrape\"")
                    .containsPattern("\"value\":\\[[0-9.]+,\"4242\"\\]");
                final String target = get(apiPort, "/api/v1/targets");
                assertThat(target).as(target).contains("\"health\":\"up\"").contains("\"lastError\":\"\"");
            } finally {
                if (server != null) {
                    server.destroy();
                    if (!server.waitFor(30, TimeUnit.SECONDS)) {
                        server.destroyForcibly();
                    }
                }
                serving.interrupt();
                serving.join(30_000);
            }
            assertThat(serving.isAlive()).isFalse();
            assertThat(code.get()).isZero();
        }
    }

    /** Queries until the result holds a sample: Prometheus needs a scrape or two after it starts. */
    private String awaitResult(final Process server, final int apiPort, final String query) throws Exception {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        String last = "(no answer yet)";
        while (System.nanoTime() < deadline) {
            assertThat(server.isAlive()).as("prometheus exited: " + log()).isTrue();
            try {
                last = get(apiPort, "/api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8));
                if (last.contains("\"result\":[{")) {
                    return last;
                }
            } catch (final IOException notListeningYet) {
                last = notListeningYet.toString();
            }
            Thread.sleep(200); // polls for an event; the deadline only fails a wait that hung
        }
        throw new AssertionError("no sample of " + query + " within " + WAIT + "; last answer: " + last + "\n" + log());
    }

    private String log() {
        try {
            return Files.readString(dir.resolve("prometheus.log"));
        } catch (final IOException ex) {
            return "(no log: " + ex + ")";
        }
    }

    private static String get(final int port, final String path) throws IOException, InterruptedException {
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()) {
            return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
        }
    }

    private static Path prometheusBinary() {
        for (final String directory : System.getenv().getOrDefault("PATH", "").split(":")) {
            final Path candidate = Path.of(directory.isEmpty() ? "." : directory, "prometheus");
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        final Path debian = Path.of("/usr/bin/prometheus");
        return Files.isExecutable(debian) ? debian : null;
    }

    /** A port outside the kernel's ephemeral range, so that no port-0 socket takes it before Prometheus binds. */
    private static int freePort() {
        return FreePorts.block("127.0.0.1", 1);
    }
}
