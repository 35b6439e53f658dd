package dev.peregrine.cli;

import dev.peregrine.cli.testing.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A transport that cannot run in the configuration asked for (a size too big for one datagram, a reply size it
 * does not answer with) is found before anything runs: alone, the command is a user error in one line; beside
 * others, its reason is said before the first run, and its row still says UNAVAILABLE.
 */
@Timeout(120)
class UnavailableUpFrontTest {
    private static final String TOO_BIG = "size=100000 exceeds one UDP datagram (65507 bytes)";

    @TempDir
    Path folder;

    @Test
    void shouldRefuseAPingPongWhoseOnlyTransportCannotRunInOneLine() {
        final CliRun cli = CliRun.execute("bench", "pingpong", "--transport", "test-mem", "--size", "32",
            "--reply-size", "64", "--messages", "100", "--warmup", "10", "--in-process", "--no-busy-spin", "--quiet");

        assertThat(cli.code()).as(cli.out() + cli.err()).isEqualTo(2);
        assertThat(cli.out()).isEmpty();
        assertThat(cli.err().strip()).doesNotContain("\n").contains("peregrine bench pingpong: no transport asked for can"
            + " run as asked: test-mem: test-mem cannot answer with a reply of another size than the message"
            + " (--reply-size=64, --size=32)");
    }

    @Test
    void shouldSayWhyATransportWillNotRunBeforeTheOthersRun() {
        final CliRun cli = CliRun.execute("bench", "pingpong", "--transport", "peregrine-tcp,test-mem", "--size", "32",
            "--reply-size", "64", "--messages", "200", "--warmup", "10", "--in-process", "--no-busy-spin", "--quiet");
        final String out = cli.out();

        assertThat(cli.code()).as(out + cli.err()).isEqualTo(1); // not every run measured, as before
        final int said = out.indexOf("test-mem: unavailable, not run: test-mem cannot answer with a reply of another"
            + " size than the message (--reply-size=64, --size=32)");
        assertThat(said).as(out).isNotNegative().isLessThan(out.indexOf("transport=peregrine-tcp"));
        assertThat(out.substring(out.indexOf("transport=peregrine-tcp"))).contains("UNAVAILABLE");
    }

    @Test
    void shouldRefuseEveryScenarioWhoseOnlyTransportCannotRun() {
        final Path report = folder.resolve("report.html");
        final String[][] commands = {
            {"bench", "pingpong", "--transport", "peregrine-udp", "--size", "100000", "--messages", "10"},
            {"bench", "load", "--transport", "peregrine-udp", "--size", "100000", "--rates", "100", "--seconds", "0.1"},
            {"bench", "throughput", "--transport", "peregrine-udp", "--size", "100000", "--messages", "10",
                "--no-stream-floor"},
            {"bench", "compare", "--transport", "peregrine-udp", "--size", "100000", "--messages", "10", "--warmup", "1",
                "--no-floor", "--report", report.toString()},
        };
        for (final String[] command : commands) {
            final CliRun cli = CliRun.execute(command);

            assertThat(cli.code()).as(String.join(" ", command) + "\n" + cli.out() + cli.err()).isEqualTo(2);
            assertThat(cli.err().strip()).doesNotContain("\n").doesNotContain("\tat ")
                .contains("no transport asked for can run as asked: peregrine-udp: " + TOO_BIG);
        }
    }

    @Test
    void shouldListTheReasonsOfCompareForEverySizeUpFront() {
        final Path report = folder.resolve("report.html");
        final CliRun cli = CliRun.execute("bench", "compare", "--transport", "test-mem,peregrine-udp", "--size",
            "32,100000", "--messages", "100", "--warmup", "10", "--in-process", "--no-busy-spin", "--quiet",
            "--no-floor", "--report", report.toString());
        final String out = cli.out();

        assertThat(cli.code()).as(out + cli.err()).isZero();
        final int said = out.indexOf("peregrine-udp: unavailable, not run: " + TOO_BIG);
        assertThat(said).as(out).isNotNegative().isLessThan(out.indexOf("test-mem size=32"));
    }
}
