package dev.peregrine.cli;

import dev.peregrine.counters.Counter;
import dev.peregrine.counters.CounterTypes;
import dev.peregrine.counters.CountersDescriptor;
import dev.peregrine.counters.CountersManager;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code ./peregrine stat} over counters files made by the test: this process's own, and a dead one's. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StatCommandTest {
    private static final long SELF = ProcessHandle.current().pid();

    @TempDir
    Path dir;

    private StatRun stat(final String... args) {
        return StatRun.stat(dir, args);
    }

    private CountersManager selfFile() {
        return CountersManager.create(dir.resolve(SELF + CountersManager.FILE_SUFFIX), 16, 0);
    }

    /** A counters file whose header names a process that has exited. */
    private Path deadFile() throws Exception {
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        final Path file = dir.resolve(gone.pid() + CountersManager.FILE_SUFFIX);
        final ByteBuffer bytes;
        // made, then closed (which lets its lock go) and left as it was: what a killed process leaves
        try (CountersManager made = CountersManager.create(dir.resolve("making" + CountersManager.FILE_SUFFIX), 4, 0)) {
            made.allocate(CounterTypes.UDP_DROPS, "left behind");
            bytes = ByteBuffer.wrap(Files.readAllBytes(made.file())).order(ByteOrder.nativeOrder());
        }
        Files.write(file, bytes.putLong(CountersDescriptor.PID_OFFSET, gone.pid()).array());
        return file;
    }

    @Test
    void shouldListTheRunningProcessesAndRemoveADeadOnesFile() throws Exception {
        final Path dead = deadFile();
        try (CountersManager counters = selfFile()) {
            counters.allocate(CounterTypes.REACTOR_DUTY_CYCLES, "reactor=r");
            final StatRun outcome = stat();
            assertThat(outcome.code()).as(outcome.err()).isZero();
            assertThat(outcome.out()).contains("removed " + dead + ": its process is no longer running");
            assertThat(outcome.out().lines().filter(line -> line.trim().startsWith(SELF + " ")).toList())
                .as(outcome.out()).hasSize(1).allMatch(line -> line.matches("\\s*" + SELF + "\\s+\\S+ \\S+\\s+1\\s+.*"));
            assertThat(dead).doesNotExist();
        }
    }

    @Test
    void shouldAnswerAPidWithoutAFileOrADeadOneWithOneLineAndExitCode2() throws Exception {
        final StatRun missing = stat("999999999");
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.err().lines().toList()).hasSize(1);
        assertThat(missing.err()).contains("no Peregrine process with pid 999999999");

        final Path dead = deadFile();
        final String pid = dead.getFileName().toString().replace(CountersManager.FILE_SUFFIX, "");
        final StatRun gone = stat(pid, "--once");
        assertThat(gone.code()).isEqualTo(2);
        assertThat(gone.err().lines().toList()).hasSize(1);
        assertThat(gone.err()).contains("process " + pid + " is not running");
        assertThat(dead).doesNotExist();
    }

    @Test
    void shouldPrintOneReadingAsJson() {
        try (CountersManager counters = selfFile()) {
            counters.allocate(CounterTypes.TCP_BYTES_IN, "transport=tcp-1 \"quoted\"").add(42);
            final StatRun outcome = stat(Long.toString(SELF), "--once", "--json");
            assertThat(outcome.code()).as(outcome.err()).isZero();
            assertThat(outcome.out()).startsWith("{\"pid\":" + SELF + ",\"name\":")
                .contains(",\"counters\":[{\"id\":0,\"type\":\"peregrine_tcp_bytes_in_total\",\"typeId\":10,"
                    + "\"label\":\"transport=tcp-1 \\\"quoted\\\"\",\"value\":42}]}");
        }
    }

    @Test
    void shouldPrintOpenMetricsThatAStrictParserAccepts() {
        try (CountersManager counters = selfFile()) {
            final Counter in = counters.allocate(CounterTypes.TCP_BYTES_IN, "transport=tcp-1 channel=2 remote=\"x\\y\"\nz");
            in.add(1234);
            counters.allocate(CounterTypes.TCP_BYTES_IN, "transport=tcp-1").add(5000);
            counters.allocate(CounterTypes.TCP_CONNECTIONS_OPEN, "transport=tcp-1").set(3);
            final StatRun outcome = stat("--prometheus");
            assertThat(outcome.code()).as(outcome.err()).isZero();
            final Map<String, StrictOpenMetrics.Family> families = StrictOpenMetrics.parse(outcome.out());
            assertThat(families).containsOnlyKeys("peregrine_tcp_bytes_in", "peregrine_tcp_connections_open");
            final StrictOpenMetrics.Family bytesIn = families.get("peregrine_tcp_bytes_in");
            assertThat(bytesIn.type()).isEqualTo("counter");
            assertThat(bytesIn.help()).isEqualTo(CounterTypes.help(CounterTypes.TCP_BYTES_IN));
            assertThat(bytesIn.samples()).containsExactly(
                new StrictOpenMetrics.Sample("peregrine_tcp_bytes_in_total",
                    Map.of("pid", Long.toString(SELF), "id", "0", "label", "transport=tcp-1 channel=2 remote=\"x\\y\"\nz"), 1234),
                new StrictOpenMetrics.Sample("peregrine_tcp_bytes_in_total",
                    Map.of("pid", Long.toString(SELF), "id", "1", "label", "transport=tcp-1"), 5000));
            assertThat(families.get("peregrine_tcp_connections_open").type()).isEqualTo("gauge");
            assertThat(families.get("peregrine_tcp_connections_open").samples()).extracting(StrictOpenMetrics.Sample::value)
                .containsExactly(3.0);
        }
    }

    @Test
    void shouldRefuseExpositionsTheFormatDoesNotAllow() {
        final String good = "# TYPE a counter\n# HELP a An \\\\ \\n help.\na_total{l=\"v\"} 1\n# EOF\n";
        assertThat(StrictOpenMetrics.parse(good)).containsOnlyKeys("a");
        for (final String bad : List.of(
            "# TYPE a counter\na_total 1\n",
            "# TYPE 1a counter\n1a_total 1\n# EOF\n",
            "# TYPE a counter\na_total{l=\"v\\x\"} 1\n# EOF\n",
            "# TYPE a counter\na_total{l=\"v\"v\"} 1\n# EOF\n",
            "# TYPE a counter\na_total 1\n# TYPE a counter\n# EOF\n",
            "# TYPE a counter\na_total one\n# EOF\n",
            "# TYPE a counter\na 1\n# EOF\n",
            "# TYPE a gauge\na{l-x=\"v\"} 1\n# EOF\n",
            "# TYPE a gauge\na 1\na 2\n# EOF\n",
            "# TYPE a gauge\n\na 1\n# EOF\n")) {
            assertThatThrownBy(() -> StrictOpenMetrics.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void shouldRefreshTheLiveViewWithRatesPerSecond() {
        try (CountersManager counters = selfFile()) {
            counters.allocate(CounterTypes.REACTOR_DUTY_CYCLES, "reactor=r").add(10);
            final StatRun outcome = stat(Long.toString(SELF), "--iterations", "2", "--interval", "100");
            assertThat(outcome.code()).as(outcome.err()).isZero();
            assertThat(outcome.out().split("\033\\[H\033\\[2J", -1)).as(outcome.out()).hasSize(3);
            final List<String> rows = outcome.out().lines().filter(line -> line.contains("reactor=r")).toList();
            assertThat(rows).hasSize(2);
            assertThat(rows.get(0)).matches("\\s*0\\s+reactor_duty_cycles_total\\s+10\\s+reactor=r");
            assertThat(rows.get(1)).matches("\\s*0\\s+reactor_duty_cycles_total\\s+10\\s+0\\.0\\s+reactor=r");
        }
    }

    @Test
    void shouldAnswerAFileTruncatedUnderTheLiveViewWithOneLineAndExitCode1() throws Exception {
        final Path file = dir.resolve(SELF + CountersManager.FILE_SUFFIX);
        try (CountersManager counters = selfFile()) {
            counters.allocate(CounterTypes.REACTOR_DUTY_CYCLES, "reactor=r").add(10);
            final CommandLine commandLine = Main.commandLine();
            final StringWriter out = new StringWriter();
            final StringWriter err = new StringWriter();
            commandLine.setOut(new PrintWriter(out, true));
            commandLine.setErr(new PrintWriter(err, true));
            final AtomicReference<Object> outcome = new AtomicReference<>();
            final Thread live = new Thread(() -> {
                try {
                    outcome.set(commandLine.execute("stat", "--dir", dir.toString(), Long.toString(SELF),
                        "--iterations", "100", "--interval", "100"));
                } catch (final Throwable ex) {
                    outcome.set(ex);
                }
            });
            live.start();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!out.toString().contains("reactor=r") && live.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(out.toString()).as("a first refresh").contains("reactor=r");
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.truncate(0); // by another process, say
            }
            live.join(TimeUnit.SECONDS.toMillis(30));

            assertThat(outcome.get()).as(err.toString()).isEqualTo(1);
            assertThat(err.toString().lines().toList()).hasSize(1);
            assertThat(err.toString()).contains("shrank under its reader");
        }
    }

    @Test
    void shouldNameACounterOfAnUnknownOrNegativeTypeSoThatAStrictParserAcceptsTheExposition() {
        try (CountersManager counters = selfFile()) {
            counters.allocate(-7, "from a damaged or foreign file").add(1); // a type id is whatever the file holds
            counters.allocate(1000, "from a later version").add(2);
            final StatRun outcome = stat("--prometheus");
            assertThat(outcome.code()).as(outcome.err()).isZero();

            // one bad name and a scraper refuses every process's counters, not just this one
            assertThat(StrictOpenMetrics.parse(outcome.out())).hasSize(2);
        }
    }
}
