package dev.peregrine.cli;

import dev.peregrine.cli.testing.CliRun;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bench reconnect} end to end: a small stream with many cuts from both sides delivers every message exactly
 * once and exits 0; a client that drops one message (the hidden test hook) is caught by the feed check and exits 1.
 */
@Timeout(180)
class ReconnectCommandTest {
    private static final Pattern CUTS = Pattern.compile("cuts=(\\d+)");

    @Test
    void shouldDeliverEveryMessageExactlyOnceAcrossCutsFromBothSidesAndExit0() {
        final CliRun cli = CliRun.execute("bench", "reconnect", "--count", "200000", "--rate", "200000",
            "--cut-every", "5");

        assertThat(cli.code()).as(cli.out() + cli.err()).isZero();
        assertThat(cli.out()).contains("two reactor threads", "delivered=200000 of 200000 lost=0 repeated=0 cuts=")
            .contains("cut to first message after it (n=").doesNotContain("FAILED")
            // the resume's stages, by who cut: the server takes the even cuts, the client the odd ones
            .contains("cut by the server (n=", "cut by the client (n=", "from the cut: loss noticed p50 ",
                "; login accepted p50 ", "; first message p50 ")
            // the hops per cut, by side, the lag at the cut, the slowest cuts and the run in tenths
            .contains("by the server (n=", "by the client (n=", "cut -> loss noticed", "noticed -> connect started",
                "connect started -> connected", "connected -> login accepted", "login accepted -> first message",
                "client's lag at the cut (published - delivered) p50 ", "cuts at or over its p99",
                "cut to first message by tenth of the run")
            // who held each resume: the server's login splits the longest hop, each reactor's cycles and CPU wait
            .contains("connected -> server logged it in", "server logged in -> accepted", "longest server cycle, resuming",
                "client cycles while resuming (count)", "server thread waited for a CPU", "client thread ran on a CPU",
                "previous resume -> this cut, p1 ", "client's lag at the cut by tenth of the run (cut order), p50/max msgs:",
                "the JVM during the run (JVM uptime ")
            // the default warm-up: two separate streams first, said in the header, each reported apart
            .contains("; first a warm-up of 2 separate streams one after the other, each of about 600 cuts and 601000"
                + " messages, in this JVM, not counted in any figure", "warm-up stream 1 of 2 (not counted): cuts=",
                "warm-up stream 2 of 2 (not counted): cuts=")
            // where the reactor threads could run, as the kernel lists it
            .containsPattern("reactor threads may run on CPUs \\(the kernel's Cpus_allowed_list\\): server \\S+, client"
                + " \\S+ \\(not pinned\\)");
        final Matcher cuts = CUTS.matcher(cli.out());
        assertThat(cuts.find()).isTrue();
        assertThat(Long.parseLong(cuts.group(1))).as(cli.out()).isGreaterThan(1); // both sides took a turn
    }

    @Test
    void shouldDeliverEveryMessageExactlyOnceWithASmallClientReceiveBufferAndCutsThatLetItSettle() {
        final CliRun cli = CliRun.execute("bench", "reconnect", "--count", "100000", "--rate", "200000",
            "--cut-every", "1", "--client-receive-buffer", "16384", "--warmup-cuts", "0", "--settle", "2");

        assertThat(cli.code()).as(cli.out() + cli.err()).isZero();
        assertThat(cli.out()).contains(", client SO_RCVBUF 16384 bytes, each cut at least 2 ms after the client's"
                + " previous resume; no warm-up",
                "delivered=100000 of 100000 lost=0 repeated=0", "cuts within 100 us of it: 0")
            .doesNotContain("FAILED");
        // settling: no cut, by either side, follows the previous resume within 2 ms (the hops' own stamps), where a
        // cut every 1 ms would otherwise often come at once after a resume that took longer
        assertThat(Pattern.compile("cuts within 100 us of it: [1-9]").matcher(cli.out()).find()).as(cli.out()).isFalse();
    }

    @Test
    void shouldWarmUpOnItsOwnStreamAndLogOnlyTheMeasuredCuts(@TempDir final Path folder) throws IOException {
        final Path log = folder.resolve("cuts.csv");
        final CliRun cli = CliRun.execute("bench", "reconnect", "--count", "100000", "--rate", "200000",
            "--cut-every", "5", "--warmup-cuts", "10", "--cut-log", log.toString());

        assertThat(cli.code()).as(cli.out() + cli.err()).isZero();
        // 10 cuts at 5 ms and 200 000 msg/s, and one interval more: 11 000 messages
        assertThat(cli.out()).contains("; first a warm-up of 2 separate streams one after the other, each of about 10"
            + " cuts and 11000 messages, in this JVM, not counted in any figure", "warm-up stream 1 of 2 (not counted):"
            + " cuts=", "warm-up stream 2 of 2 (not counted): cuts=", " of 11000 ",
            "delivered=100000 of 100000 lost=0 repeated=0", "every cut's hops written to " + log).doesNotContain("FAILED");
        final Matcher cuts = CUTS.matcher(cli.out().substring(cli.out().indexOf("delivered=100000")));
        assertThat(cuts.find()).isTrue();
        final List<String> lines = Files.readAllLines(log);
        assertThat(lines.get(0)).startsWith("cut,side,at_us,lag_msgs,");
        // a line per cut of the measured stream only: the warm-up's cuts are in no figure
        assertThat(lines).hasSize(1 + Integer.parseInt(cuts.group(1)));
        assertThat(lines.get(1)).startsWith("0,server,");
    }

    @Test
    void shouldPinBothReactorThreadsWhereAsked() {
        final int last = Runtime.getRuntime().availableProcessors() - 1;
        final CliRun cli = CliRun.execute("bench", "reconnect", "--count", "50000", "--rate", "200000",
            "--cut-every", "5", "--warmup-cuts", "2", "--cpu", last + "," + last);

        assertThat(cli.code()).as(cli.out() + cli.err()).isZero();
        // the kernel's own list, read on each reactor thread after the run: one CPU each, the one asked
        assertThat(cli.out()).contains("(the client's pinned to CPU " + last + ", the server's to CPU " + last + ")",
            "delivered=50000 of 50000 lost=0 repeated=0", "reactor threads may run on CPUs (the kernel's"
                + " Cpus_allowed_list): server " + last + ", client " + last + " (pinned by --cpu " + last + "," + last
                + ")").doesNotContain("FAILED");
    }

    @Test
    void shouldRefuseCpusItCannotPinInOneLineWithExit2() {
        final int cpus = Runtime.getRuntime().availableProcessors();
        final CliRun tooMany = CliRun.execute("bench", "reconnect", "--cpu", "0,0,0");
        final CliRun missing = CliRun.execute("bench", "reconnect", "--cpu", "0," + cpus);
        final CliRun restart = CliRun.execute("bench", "reconnect", "--cpu", "0", "--restart");
        final CliRun replay = CliRun.execute("bench", "reconnect", "--cpu", "0", "--replay-clients", "2");

        assertThat(List.of(tooMany, missing, restart, replay)).allSatisfy(cli -> {
            assertThat(cli.code()).as(cli.err()).isEqualTo(2);
            assertThat(cli.err().strip().lines()).as(cli.err()).hasSize(1);
            assertThat(cli.err()).contains("--cpu").doesNotContain("Exception", "\tat ");
            assertThat(cli.out()).isEmpty();
        });
        assertThat(tooMany.err()).contains("0,0,0 names 3 CPUs; expected CLIENT or CLIENT,SERVER");
        assertThat(missing.err()).contains(cpus + " is not a CPU of this machine; expected 0 to " + (cpus - 1));
        assertThat(restart.err()).contains("not with --restart");
        assertThat(replay.err()).contains("not with --replay-clients");
    }

    @Test
    void shouldExitNonZeroWhenTheClientDropsAMessage() {
        final CliRun cli = CliRun.execute("bench", "reconnect", "--count", "50000", "--rate", "100000",
            "--cut-every", "5", "--test-skip", "20000", "--warmup-cuts", "0");

        assertThat(cli.code()).as(cli.out() + cli.err()).isEqualTo(1);
        assertThat(cli.out()).contains("delivered=49999 of 50000 lost=1 repeated=0", "FAILED");
    }

    @Test
    @Tag("slow")
    void shouldLoseNothingWhenTheServerJvmIsKilledAndRestartedOnItsStore() {
        final CliRun cli = CliRun.execute("bench", "reconnect", "--restart", "--count", "60000", "--rate", "20000",
            "--restart-every", "0.5");

        assertThat(cli.code()).as(cli.out() + cli.err()).isZero();
        assertThat(cli.out()).contains("child JVM", "delivered=60000 of 60000 lost=0 repeated=0 cuts=",
            "kill to restarted server listening (n=").doesNotContain("FAILED");
        final Matcher kills = CUTS.matcher(cli.out());
        assertThat(kills.find()).isTrue();
        assertThat(Long.parseLong(kills.group(1))).as(cli.out()).isPositive();
    }

    @Test
    void shouldReportALiveClientsLatencyWithAndWithoutReplayingClients() {
        final CliRun cli = CliRun.execute("bench", "reconnect", "--replay-clients", "2", "--replay-messages", "20000",
            "--count", "20000", "--rate", "20000");

        assertThat(cli.code()).as(cli.out() + cli.err()).isZero();
        assertThat(cli.out()).contains("0 replaying clients: finished; live client delivered 20000 of 20000",
            "2 replaying clients: finished; live client delivered 20000 of 20000",
            "live client, no replaying clients: publish to deliver (n=20000)",
            "live client, 2 clients replaying 20000 each: publish to deliver (n=20000)", "p99 with replaying clients",
            "server, no replaying clients: publish to write at the caught-up client (n=",
            "server, 2 clients replaying 20000 each, while all 2 were replaying (live messages 1 to ",
            "): publish to write at the caught-up client (n=",
            "server publish-to-write p99 with replaying clients / without: ", "(target: within 2x)",
            "stamped at the write", "left bytes for OP_WRITE");
    }

    @Test
    void shouldSplitTheServersDutyCyclesWhenAskedToDiagnose() {
        final CliRun cli = CliRun.execute("bench", "reconnect", "--replay-clients", "2", "--replay-messages", "5000",
            "--count", "5000", "--rate", "20000", "--diagnose");

        assertThat(cli.code()).as(cli.out() + cli.err()).isZero();
        assertThat(cli.out()).contains("diagnose 0 replaying: ", "diagnose 2 replaying: ", "measured messages traced",
            "what holds them", "cycles holding the p99 messages", "every recorded cycle",
            "server publish-to-write p99 with replaying clients / without: ");
        assertThat(CliRun.execute("bench", "reconnect", "--help").out()).as("a diagnostic, not in the help")
            .doesNotContain("--diagnose");
    }
}
