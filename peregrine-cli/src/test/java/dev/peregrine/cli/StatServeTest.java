package dev.peregrine.cli;

import dev.peregrine.counters.Counter;
import dev.peregrine.counters.CounterTypes;
import dev.peregrine.counters.CountersManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code ./peregrine stat --serve}: what Prometheus scrapes, fetched over loopback with the JDK's HTTP client. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StatServeTest {
    private static final long SELF = ProcessHandle.current().pid();

    @TempDir
    Path dir;

    private StatRun stat(final String... args) {
        return StatRun.stat(dir, args);
    }

    @Test
    void shouldServeWhatStatPrometheusPrintsWithTheOpenMetricsContentType() throws Exception {
        try (CountersManager counters = CountersManager.create(dir.resolve(SELF + CountersManager.FILE_SUFFIX), 16, 0)) {
            final Counter sent = counters.allocate(CounterTypes.TCP_MESSAGES_OUT, "tcp=\"a\"");
            sent.add(42);
            final String printed = stat("--prometheus").out();

            // the served command runs on a thread of its own; its one line of output says which port it bound
            final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            final CommandLine commandLine = Main.commandLine();
            commandLine.setOut(new PrintWriter(new LineQueue(lines), true));
            final AtomicInteger code = new AtomicInteger(-1);
            final Thread serving = new Thread(() -> code.set(commandLine.execute("stat", "--dir", dir.toString(),
                "--serve", "0")), "stat-serve");
            serving.start();
            final String line = lines.poll(30, TimeUnit.SECONDS);
            assertThat(line).as("the serving line").isNotNull();
            final Matcher url = Pattern.compile("serving (http://127\\.0\\.0\\.1:\\d+/metrics) ").matcher(line);
            assertThat(url.find()).as(line).isTrue();

            try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build()) {
                final HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(url.group(1)))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.headers().allValues("content-type"))
                    .containsExactly("application/openmetrics-text; version=1.0.0; charset=utf-8");
                assertThat(response.body()).isEqualTo(printed).endsWith("# EOF\n")
                    .contains("peregrine_tcp_messages_out_total{pid=\"" + SELF + "\",id=\"0\",label=\"tcp=\\\"a\\\"\"} 42\n");

                sent.add(1); // read anew on each scrape
                assertThat(client.send(HttpRequest.newBuilder(URI.create(url.group(1))).build(),
                    HttpResponse.BodyHandlers.ofString()).body()).contains("\"} 43\n");

                final HttpResponse<String> other = client.send(HttpRequest.newBuilder(
                    URI.create(url.group(1).replace("/metrics", "/metricsx"))).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(other.statusCode()).isEqualTo(404);
            } finally {
                serving.interrupt();
                serving.join(30_000);
            }
            assertThat(serving.isAlive()).isFalse();
            assertThat(code.get()).isZero();
        }
    }

    @Test
    void shouldAnswerABadPortOrAddressWithOneLineAndExitCode2() throws Exception {
        for (final String[] args : List.of(new String[] {"--serve", "65536"}, new String[] {"--serve", "-1"},
            new String[] {"--serve", "http"}, new String[] {"--serve", "0", "--bind", "203.0.113.7"},
            new String[] {"--serve", "0", "--bind", "no-such-host.invalid"}, new String[] {"--serve", "0", "--json"})) {
            final StatRun outcome = stat(args);
            assertThat(outcome.code()).as(String.join(" ", args) + ": " + outcome.err()).isEqualTo(2);
            assertThat(outcome.err().lines().toList()).as(outcome.err()).hasSize(1);
            assertThat(outcome.out()).isEmpty();
        }
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            final StatRun outcome = stat("--serve", Integer.toString(taken.getLocalPort()));
            assertThat(outcome.code()).as(outcome.err()).isEqualTo(2);
            assertThat(outcome.err().lines().toList()).as(outcome.err()).hasSize(1);
            assertThat(outcome.err()).contains("'--serve'", "127.0.0.1:" + taken.getLocalPort());
        }
    }
}
