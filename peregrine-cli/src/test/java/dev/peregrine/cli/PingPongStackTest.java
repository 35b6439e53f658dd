package dev.peregrine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.peregrine.bench.testing.Json;
import dev.peregrine.cli.testing.CliRun;
import dev.peregrine.shm.ShmFutex;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bench pingpong --stack}: the shared and the separated stack of Peregrine's TCP and shared memory measured
 * in one run, each row named for its stack, TCP with and without its responder logging every message, the responders in a second JVM; any other transport or stack refused
 * with one line and exit code 2. The same with a client that sleeps in a select for each echo ({@code --client-wait
 * block}), refused likewise where it does not apply.
 */
@Tag("slow")
@Timeout(300)
class PingPongStackTest {
    @TempDir
    Path folder;

    @Test
    void shouldMeasureBothStacksOfTcpAndSharedMemoryInOneRunWithRowsNamedForTheirStack() throws Exception {
        final Path json = folder.resolve("stacks.json");

        final CliRun cli = CliRun.execute("bench", "pingpong", "--transport", "tcp,shm", "--stack", "shared,separated",
            "--size", "32", "--messages", "2000", "--warmup", "500", "--no-busy-spin", "--quiet", "--json",
            json.toString());
        final String out = cli.out();

        assertThat(cli.code()).as(out + cli.err()).isZero();
        final List<JsonNode> runs = Json.read(json).valueStream().toList();
        assertThat(runs).extracting(r -> r.get("transport").asText()).containsExactly("peregrine-tcp",
            "peregrine-tcp[separated]", "peregrine-shm", "peregrine-shm[separated]");
        // ok means every echo carried the sequence sent: the clients check it
        assertThat(runs).allSatisfy(r -> {
            assertThat(r.get("status").asText()).isEqualTo("ok");
            assertThat(r.get("messages").asLong()).isEqualTo(2000);
        });
        assertThat(out).containsPattern("peregrine-tcp\\[separated\\] \\* +32 ")
            .containsPattern("peregrine-shm\\[separated\\] \\* +32 ").contains("YieldingIdleStrategy")
            .contains("separated stack against shared + one hand-off each way")
            .containsPattern("size 32: peregrine-spsc \\(events\\) [0-9.]+ us, peregrine-mpsc \\(commands\\) [0-9.]+ us")
            .containsPattern("peregrine-tcp size 32: separated p50 [0-9.]+ us (<=|>) shared [0-9.]+ \\+ [0-9.]+ \\+ ")
            .containsPattern("peregrine-shm size 32: separated p50 [0-9.]+ us (<=|>) shared ");
    }

    /**
     * {@code --client-wait block}: the client of every row sleeps in a blocking select for each echo (so that, on two
     * cores, the separated responder's reactor and application thread can each have one); the heading and every run
     * of the JSON say so, and both rows and the bound's line are there.
     */
    @Test
    void shouldMeasureBothStacksWithTheClientAsleepAndNameItsWaitInTheHeadingAndTheJson() throws Exception {
        final Path json = folder.resolve("block.json");

        final CliRun cli = CliRun.execute("bench", "pingpong", "--transport", "tcp", "--stack", "shared,separated",
            "--size", "256", "--messages", "2000", "--warmup", "500", "--client-wait", "block", "--quiet", "--json",
            json.toString());
        final String out = cli.out();

        assertThat(cli.code()).as(out + cli.err()).isZero();
        final List<JsonNode> runs = Json.read(json).valueStream().toList();
        assertThat(runs).extracting(r -> r.get("transport").asText()).containsExactly("peregrine-tcp",
            "peregrine-tcp[separated]");
        assertThat(runs).allSatisfy(r -> {
            assertThat(r.get("status").asText()).isEqualTo("ok");
            assertThat(r.get("messages").asLong()).isEqualTo(2000);
            assertThat(r.get("client_wait").asText()).isEqualTo("block");
        });
        assertThat(out).contains("client wait: block (the client sleeps in a blocking select on its socket")
            .containsPattern("peregrine-tcp\\[separated\\] \\* +256 ")
            .containsPattern("peregrine-tcp size 256: separated p50 [0-9.]+ us (<=|>) shared [0-9.]+ \\+ ");
    }

    @Test
    void shouldRefuseABlockingClientForAnotherTransportWithOneLine() {
        final CliRun cli = CliRun.execute("bench", "pingpong", "--transport", "tcp,shm", "--stack", "shared,separated",
            "--client-wait", "block", "--messages", "10", "--warmup", "0");

        assertThat(cli.code()).isEqualTo(2);
        assertThat(cli.err().lines().toList()).hasSize(1);
        assertThat(cli.err()).contains("--client-wait", "block runs with peregrine-tcp only (a blocking select on its"
            + " socket), not --transport peregrine-shm");
    }

    @Test
    void shouldRefuseABlockingClientAtARateWithOneLine() {
        final CliRun cli = CliRun.execute("bench", "pingpong", "--transport", "tcp", "--client-wait", "block",
            "--rate", "1000", "--messages", "10", "--warmup", "0");

        assertThat(cli.code()).isEqualTo(2);
        assertThat(cli.err().lines().toList()).hasSize(1);
        assertThat(cli.err()).contains("--client-wait", "block has one message in flight; not with --rate 1000");
    }

    @Test
    void shouldRefuseAClientWaitThatIsNotOneWithOneLine() {
        final CliRun cli = CliRun.execute("bench", "pingpong", "--transport", "tcp", "--client-wait", "sleep",
            "--messages", "10", "--warmup", "0");

        assertThat(cli.code()).isEqualTo(2);
        assertThat(cli.err().lines().toList()).hasSize(1);
        assertThat(cli.err()).contains("--client-wait", "'sleep' is not a client wait; use spin");
    }

    @Test
    void shouldRefuseTheSeparatedStackForAnotherTransportWithOneLine() {
        final CliRun cli = CliRun.execute("bench", "pingpong", "--transport", "tcp,udp", "--stack", "separated",
            "--messages", "10", "--warmup", "0");

        assertThat(cli.code()).isEqualTo(2);
        assertThat(cli.err().lines().toList()).hasSize(1);
        assertThat(cli.err()).contains("--stack", "separated runs with peregrine-tcp and peregrine-shm only, not"
            + " --transport peregrine-udp");
    }

    /**
     * Busy-spinning (the default) on a machine with fewer than 3 cores: the separated responder's reactor yields, and
     * its application thread yields ([separated]) or sleeps on a futex that the reactor wakes per event
     * ([separated-sleep]); the report's heading says which mode this machine got. While the reactor spun, the
     * yielding application thread waited a scheduler slice for every event (10 ms a round trip here) and 10 000
     * warm-up round trips overran the runner's 61 s deadline.
     */
    @Test
    void shouldRunBothSeparatedModesBusySpinningAndNameTheMachinesMode() throws Exception {
        final Path json = folder.resolve("busy.json");

        final CliRun cli = CliRun.execute("bench", "pingpong", "--transport", "tcp", "--stack",
            "separated,separated-sleep", "--size", "64", "--messages", "2000", "--warmup", "10000", "--quiet", "--json",
            json.toString());

        assertThat(cli.code()).as(cli.out() + cli.err()).isZero();
        final List<JsonNode> runs = Json.read(json).valueStream().toList();
        assertThat(runs).extracting(r -> r.get("transport").asText()).containsExactly("peregrine-tcp[separated]",
            "peregrine-tcp[separated-sleep]");
        assertThat(runs).allSatisfy(r -> {
            assertThat(r.get("status").asText()).isEqualTo("ok");
            assertThat(r.get("messages").asLong()).isEqualTo(2000);
        });
        final int cores = Runtime.getRuntime().availableProcessors();
        assertThat(cli.out()).contains("Mode on this machine (" + cores + " cores): ").contains(cores >= 3
            ? "the reactor spins as in the shared rows"
            : ShmFutex.isAvailable() ? "the application thread sleeping on a futex" : "no futex here");
    }

    @Test
    void shouldRefuseTheYieldingSeparatedStackForAnotherTransportWithOneLine() {
        final CliRun cli = CliRun.execute("bench", "pingpong", "--transport", "udp", "--stack", "separated-sleep",
            "--messages", "10", "--warmup", "0");

        assertThat(cli.code()).isEqualTo(2);
        assertThat(cli.err().lines().toList()).hasSize(1);
        assertThat(cli.err()).contains("--stack", "separated runs with peregrine-tcp and peregrine-shm only, not"
            + " --transport peregrine-udp");
    }

    @Test
    void shouldMeasureTcpWithAndWithoutTheLoggingResponderInOneRun() throws Exception {
        final Path json = folder.resolve("logged.json");

        final CliRun cli = CliRun.execute("bench", "pingpong", "--transport", "tcp", "--stack", "shared,logged",
            "--size", "32", "--messages", "2000", "--warmup", "500", "--no-busy-spin", "--quiet", "--json",
            json.toString());
        final String out = cli.out();

        assertThat(cli.code()).as(out + cli.err()).isZero();
        final List<JsonNode> runs = Json.read(json).valueStream().toList();
        assertThat(runs).extracting(r -> r.get("transport").asText()).containsExactly("peregrine-tcp",
            "peregrine-tcp[logged]");
        assertThat(runs).allSatisfy(r -> {
            assertThat(r.get("status").asText()).isEqualTo("ok");
            assertThat(r.get("messages").asLong()).isEqualTo(2000);
        });
        assertThat(out).containsPattern("peregrine-tcp\\[logged\\] \\* +32 ").contains("LoggingHandler");
    }

    @Test
    void shouldRefuseTheLoggedStackForAnotherTransportWithOneLine() {
        final CliRun cli = CliRun.execute("bench", "pingpong", "--transport", "shm", "--stack", "logged",
            "--messages", "10", "--warmup", "0");

        assertThat(cli.code()).isEqualTo(2);
        assertThat(cli.err().lines().toList()).hasSize(1);
        assertThat(cli.err()).contains("--stack", "logged runs with peregrine-tcp only, not --transport peregrine-shm");
    }

    @Test
    void shouldRefuseAStackThatIsNotOneWithOneLine() {
        final CliRun cli = CliRun.execute("bench", "pingpong", "--transport", "tcp", "--stack", "shared,seperated",
            "--messages", "10", "--warmup", "0");

        assertThat(cli.code()).isEqualTo(2);
        assertThat(cli.err().lines().toList()).hasSize(1);
        assertThat(cli.err()).contains("--stack", "'seperated' is not a stack; expected shared, separated,"
            + " separated-sleep, logged or several");
    }
}
