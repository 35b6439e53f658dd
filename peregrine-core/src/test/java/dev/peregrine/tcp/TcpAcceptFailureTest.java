package dev.peregrine.tcp;

import dev.peregrine.testkit.Needs;
import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.reactor.NanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An accept that fails for want of a file descriptor (EMFILE) leaves the connection in the backlog and the
 * listening socket readable: the server reports it once and stops accepting for {@link TcpServer#ACCEPT_PAUSE_NS},
 * instead of failing, and reporting, on every cycle of a spinning reactor; then it accepts the waiting connection.
 * The test lowers this JVM's own open-file limit with {@code prlimit} for the moment of the accept.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TcpAcceptFailureTest {
    private static final String PRLIMIT = "/usr/bin/prlimit";

    @Test
    void shouldReportAFailedAcceptOncePauseAcceptingAndThenAcceptTheConnectionThatWaited() throws Exception {
        Needs.installable("prlimit (util-linux)", Files.isExecutable(Path.of(PRLIMIT)), PRLIMIT
            + " is missing, and it lowers this JVM's open-file limit");
        final long softLimit = softLimit();
        final long pid = ProcessHandle.current().pid();
        final long[] now = {1_000_000_000L};
        final NanoClock clock = () -> now[0]; // stands still until the test moves it: the pause cannot end early
        try (TcpTestRig rig = new TcpTestRig(new TcpOptions(), clock); Socket peer = new Socket()) {
            peer.connect(rig.listen()); // completed by the kernel: it waits in the backlog for the accept
            // started before the limit falls, as starting a process needs descriptors: it restores the limit on a line
            final Process restorer = new ProcessBuilder("sh", "-c", "read line; exec " + PRLIMIT + " --pid " + pid
                + " --nofile=" + softLimit + ":").redirectErrorStream(true).start();
            try {
                // no new descriptor at all: 0, 1 and 2 are taken, so every new one would be numbered past the limit
                run(PRLIMIT, "--pid", Long.toString(pid), "--nofile=3:");
                for (int cycle = 0; cycle < 10_000; cycle++) { // a spinning reactor: the socket stays readable
                    rig.reactor.doWork();
                }
            } finally {
                restorer.getOutputStream().write('\n');
                restorer.getOutputStream().close();
                final String output = new String(restorer.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(restorer.waitFor()).as("prlimit restoring the limit: " + output).isZero();
            }
            assertThat(softLimit()).isEqualTo(softLimit);
            assertThat(rig.errors).as("one report, not one per cycle").hasSize(1);
            assertThat(rig.errors.get(0)).hasMessageContaining("accept on").hasMessageContaining("accepting again in 1000 ms");
            assertThat(rig.has(ChannelEvent.Accepted.class)).isFalse();

            now[0] += TcpServer.ACCEPT_PAUSE_NS - 1;
            for (int cycle = 0; cycle < 1_000; cycle++) {
                rig.reactor.doWork();
            }
            assertThat(rig.has(ChannelEvent.Accepted.class)).as("accepted before the pause was over").isFalse();
            now[0] += 1;
            rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class)); // once the pause is over

            assertThat(rig.errors).hasSize(1);
        }
    }

    /** This process's soft limit on open files, from /proc/self/limits. */
    private static long softLimit() throws IOException {
        for (final String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
            if (line.startsWith("Max open files")) {
                return Long.parseLong(line.substring("Max open files".length()).trim().split("\\s+")[0]);
            }
        }
        throw new IllegalStateException("no 'Max open files' in /proc/self/limits");
    }

    private static void run(final String... command) throws IOException, InterruptedException {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        try (var out = process.getInputStream()) {
            final String output = new String(out.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(process.waitFor()).as(String.join(" ", command) + ": " + output).isZero();
        }
    }
}
