package dev.peregrine.shm;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A second JVM on the other side of the rings. */
@Tag("slow")
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ShmTwoProcessTest {
    @TempDir
    Path dir;

    static Process startPeer(final String... args) throws IOException {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElseThrow());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("-XX:AutoBoxCacheMax=65536"); // as the launcher: SelectorBoxing
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(ShmPeerProcess.class.getName());
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    static void awaitLine(final Process process, final String expected) throws IOException, InterruptedException {
        final BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null) {
            if (line.equals(expected)) {
                return;
            }
        }
        throw new IllegalStateException("peer ended without printing " + expected + ", exit=" + process.waitFor());
    }

    /** Records what the reactor delivers. */
    static final class Recorder implements ChannelHandler {
        final List<Long> sequences = new ArrayList<>();
        volatile String closed;
        volatile boolean listening;
        volatile boolean accepted;
        int receivedBeforeKill = -1;
        long closedAtNs;

        @Override
        public void onListening(final long serverId, final SocketAddress localAddress) {
            listening = true;
        }

        @Override
        public void onAccepted(final long serverId, final long channelId, final SocketAddress remoteAddress) {
            accepted = true;
        }

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            sequences.add(buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset));
        }

        @Override
        public void onClosed(final long channelId, final CloseReason reason, final String detail) {
            closed = reason + ": " + detail;
            closedAtNs = System.nanoTime();
        }
    }

    private Recorder runWriterPeer(final int count, final boolean orderlyClose) throws Exception {
        return runWriterPeer(count, orderlyClose ? "close" : "wait");
    }

    /** {@code then}: "close" (orderly), "wait" (killed after writing) or "claim" (killed holding a claim). */
    private Recorder runWriterPeer(final int count, final String then) throws Exception {
        final boolean orderlyClose = "close".equals(then);
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("w.sock"));
        final Recorder recorder = new Recorder();
        try (Reactor reactor = new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy()));
             ShmTransport transport = new ShmTransport(reactor, new ShmOptions().ringDirectory(dir), recorder)) {
            transport.listen(address);
            while (!recorder.listening) {
                reactor.doWork();
            }
            final Process peer = startPeer("write", address.getPath().toString(), Integer.toString(count), then);
            try {
                while (!recorder.accepted) {
                    reactor.doWork();
                }
                // the reactor stands still while the peer writes: everything is still in the ring at the kill
                awaitLine(peer, "claim".equals(then) ? "claimed" : "written");
                recorder.receivedBeforeKill = recorder.sequences.size();
                // the reader has not polled everything yet: the kill finds messages still in the ring
                final long killedAtNs = System.nanoTime();
                if (!orderlyClose) {
                    peer.destroyForcibly(); // SIGKILL: no chance to mark its ring closed
                }
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (recorder.closed == null && System.nanoTime() < deadline) {
                    reactor.doWork();
                }
                System.out.printf("peer %s detected after %.1f ms%n", orderlyClose ? "close" : "kill -9",
                    (recorder.closedAtNs - killedAtNs) / 1e6);
            } finally {
                peer.destroyForcibly();
                peer.waitFor();
            }
        }
        return recorder;
    }

    @Test
    void shouldDrainWhatAKilledPeerWroteThenReportReset() throws Exception {
        final Recorder recorder = runWriterPeer(5_000, false);
        assertThat(recorder.receivedBeforeKill).as("messages still in the ring at the kill").isLessThan(4_000);
        assertThat(recorder.closed).startsWith("RESET");
        assertThat(recorder.sequences).hasSize(5_000);
        for (int i = 0; i < 5_000; i++) {
            assertThat(recorder.sequences.get(i)).isEqualTo(i);
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.filter(f -> f.getFileName().toString().startsWith(ShmRingFile.PREFIX))).isEmpty();
        }
    }

    @Test
    void shouldReportResetAndNoHalfRecordWhenThePeerIsKilledBetweenClaimAndCommit() throws Exception {
        final Recorder recorder = runWriterPeer(1_000, "claim");
        assertThat(recorder.closed).startsWith("RESET");
        assertThat(recorder.sequences).hasSize(1_000); // the claimed, filled, uncommitted record is never delivered
        for (int i = 0; i < 1_000; i++) {
            assertThat(recorder.sequences.get(i)).isEqualTo(i);
        }
    }

    @Test
    void shouldDrainWhatAClosingPeerWroteThenReportByPeer() throws Exception {
        final Recorder recorder = runWriterPeer(5_000, true);
        assertThat(recorder.receivedBeforeKill).as("messages still in the ring at the kill").isLessThan(4_000);
        assertThat(recorder.closed).startsWith("BY_PEER");
        assertThat(recorder.sequences).hasSize(5_000);
        assertThat(recorder.sequences.getLast()).isEqualTo(4_999);
    }

    @Test
    void shouldEchoInOrderThroughAnotherProcessAndReportResetWhenItIsKilled() throws Exception {
        final Path socketPath = dir.resolve("e.sock");
        final Process peer = startPeer("echo", socketPath.toString(), dir.toString());
        try {
            awaitLine(peer, "listening");
            try (ShmSocket socket = ShmSocket.connect(UnixDomainSocketAddress.of(socketPath), new ShmOptions())) {
                final DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                final DataInputStream in = new DataInputStream(socket.getInputStream());
                final byte[] payload = new byte[300];
                for (int i = 0; i < 10_000; i++) {
                    out.writeLong(i);
                    final int extra = i % 300;
                    ShmRingTestSupport.fill(payload, extra, i);
                    out.write(payload, 0, extra);
                    assertThat(in.readLong()).isEqualTo(i);
                    final byte[] back = new byte[extra];
                    in.readFully(back);
                    for (int b = 0; b < extra; b++) {
                        assertThat(back[b]).isEqualTo(payload[b]);
                    }
                }
                peer.destroyForcibly();
                final long killedAt = System.nanoTime();
                assertThatThrownBy(in::read).isInstanceOf(IOException.class).hasMessageContaining("connection reset");
                System.out.printf("blocking reader saw kill -9 after %.1f ms%n", (System.nanoTime() - killedAt) / 1e6);
            }
        } finally {
            peer.destroyForcibly();
            peer.waitFor();
        }
    }
}
