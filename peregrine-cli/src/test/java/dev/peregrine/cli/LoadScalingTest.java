package dev.peregrine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.peregrine.bench.testing.Json;
import dev.peregrine.cli.testing.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bench load --clients 1,10,100,1000 --total-rates R --workers 0,2}: a row per transport, worker count,
 * client count and rate, the total rate spread over the clients; and the options' refusals, one line each.
 */
@Timeout(300)
class LoadScalingTest {
    @TempDir
    Path folder;

    @Test
    void shouldRefuseWhatCannotRunWithOneLineAndExitCode2() {
        final Map<List<String>, List<String>> refused = new LinkedHashMap<>();
        refused.put(List.of("--transport", "tcp", "--clients", "1,3", "--total-rates", "1000"),
            List.of("'--total-rates'", "1000 messages per second do not spread evenly over 3 clients"));
        refused.put(List.of("--transport", "tcp", "--rates", "1000", "--total-rates", "3000"),
            List.of("'--total-rates'", "--rates and --total-rates exclude each other"));
        refused.put(List.of("--transport", "netty,nio", "--workers", "0,2"),
            List.of("'--workers'", "0,2 needs peregrine-tcp or peregrine-shm among the transports"));
        refused.put(List.of("--transport", "tcp", "--workers", "2", "--topology", "per-client"),
            List.of("'--workers'", "--topology shared"));
        refused.put(List.of("--transport", "tcp", "--workers", "2", "--respond-every", "10"),
            List.of("'--workers'", "drop --respond-every"));
        refused.put(List.of("--transport", "tcp", "--workers", "65"), List.of("'--workers'"));
        refused.put(List.of("--transport", "tcp", "--clients", "1,1001"), List.of("'--clients'"));
        refused.put(List.of("--transport", "tcp", "--clients", "10,10"), List.of("'--clients'", "10 twice"));
        refused.forEach((args, mentions) -> {
            final List<String> command = new ArrayList<>(List.of("bench", "load"));
            command.addAll(args);
            final CliRun cli = CliRun.execute(command.toArray(new String[0]));
            assertThat(cli.code()).as(args + ": " + cli.err()).isEqualTo(2);
            assertThat(cli.err().strip().lines().toList()).as(args.toString()).hasSize(1);
            assertThat(cli.err()).as(args.toString()).contains(mentions).doesNotContain("\tat ");
        });
    }

    @Test
    void shouldSayHowManyFileDescriptorsAThousandClientsNeed() {
        // three a client (a socket; a peer's client has a selector and its wake-up too), one more a responder
        // connection in this process, and 256 for the JVM
        assertThat(LoadCommand.fileDescriptorShortfall(1000, false, 1024)).isEqualTo("1000 clients need about 3256"
            + " file descriptors and this process may open 1024 (ulimit -n); raise the limit or run fewer clients");
        assertThat(LoadCommand.fileDescriptorShortfall(1000, true, 4000)).as("the responder's sockets too")
            .startsWith("1000 clients need about 4256 file descriptors");
        assertThat(LoadCommand.fileDescriptorShortfall(1000, false, 3256)).isNull();
        assertThat(LoadCommand.fileDescriptorShortfall(1000, true, -1)).as("a platform that does not say").isNull();
    }

    @Test
    void shouldRunEveryClientCountAtTheSameTotalRateWithAndWithoutWorkers() throws Exception {
        final Path json = folder.resolve("scale.json");
        final Path report = folder.resolve("scale.html");

        final CliRun cli = CliRun.execute("bench", "load", "--transport", "peregrine-tcp,peregrine-shm", "--clients",
            "1,3", "--workers", "0,2", "--total-rates", "3000", "--size", "64", "--seconds", "0.05",
            "--warmup-seconds", "0.01", "--in-process", "--no-busy-spin", "--quiet", "--json", json.toString(), "--report", report.toString());

        assertThat(cli.code()).as(cli.out() + cli.err()).isZero();
        final List<String> rows = new ArrayList<>();
        for (final JsonNode run : Json.read(json)) {
            rows.add(run.get("transport").asText() + " clients=" + run.get("clients").asInt() + " rate="
                + run.get("rate").asLong() + " " + run.get("status").asText());
        }
        assertThat(rows).containsExactly(
            "peregrine-tcp clients=1 rate=3000 ok",
            "peregrine-tcp clients=3 rate=1000 ok",
            "peregrine-tcp+workers=2 clients=1 rate=3000 ok",
            "peregrine-tcp+workers=2 clients=3 rate=1000 ok",
            "peregrine-shm clients=1 rate=3000 ok",
            "peregrine-shm clients=3 rate=1000 ok",
            "peregrine-shm+workers=2 clients=1 rate=3000 ok",
            "peregrine-shm+workers=2 clients=3 rate=1000 ok");
        assertThat(cli.out()).containsPattern("peregrine-tcp\\+workers=2 [ *]+64 +3 +1000 ")
            .contains("Topology shared: 1, 3 clients in turn")
            .contains("TRANSPORT+workers=N: the responder reactor hands each message to one of N worker threads")
            .contains("Workers idle with Thread.yield");
        // the report's chart against the connections: the one total rate, each transport's p50 and p99
        final String html = java.nio.file.Files.readString(report);
        assertThat(html).contains("Load: latency against the number of connections, at one total rate")
            .contains("load size=64, 3k msg/s in total: p50 and p99 round trip against connections");
        for (final String transport : List.of("peregrine-tcp", "peregrine-tcp+workers=2", "peregrine-shm",
            "peregrine-shm+workers=2")) {
            for (final String percentile : List.of("50", "99")) {
                assertThat(html).as(transport + " p" + percentile).containsPattern("data-transport=\""
                    + java.util.regex.Pattern.quote(transport) + "\" data-percentile=\"" + percentile
                    + "\"[^>]*><path [^>]*/><circle class=\"point\" data-clients=\"1\"[^>]*/><circle class=\"point\""
                    + " data-clients=\"3\"");
            }
        }
    }
}
