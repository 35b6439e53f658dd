package dev.peregrine.cli;

import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.soup.SoupBinTcpClient;
import dev.peregrine.soup.SoupBinTcpClientOptions;
import dev.peregrine.soup.SoupBinTcpServer;
import dev.peregrine.soup.SoupBinTcpServerOptions;
import dev.peregrine.soup.SoupBinTcpSession;
import dev.peregrine.soup.SoupLoginDecision;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code soup serve} and {@code soup connect} in process, over loopback. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SoupCommandTest {
    private static int freePort() throws Exception {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        }
    }

    private static int execute(final StringWriter err, final String... args) {
        final CommandLine commandLine = Main.commandLine();
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args);
    }

    @Test
    void shouldFollowTheTestFeedToItsEndAndVerifyIt() throws Exception {
        final String port = String.valueOf(freePort());
        final AtomicInteger served = new AtomicInteger(-1);
        final Thread server = Thread.ofPlatform().start(() -> served.set(execute(new StringWriter(),
            "soup", "serve", "--port", port, "--count", "3000", "--rate", "50000")));
        try {
            // the client reconnects until the server is listening, then follows the session to End of Session
            final int code = execute(new StringWriter(), "soup", "connect", "--port", port, "--verify", "--seconds", "60");
            assertThat(code).isZero();
        } finally {
            server.interrupt();
            server.join(30_000);
        }
        assertThat(served.get()).isZero();
    }

    /**
     * The bug: the serve summary said {@code logins=0} after a client had logged in, because the only figures printed
     * were the per-second lines, and none came after the login (a stop within the second printed nothing more). Fails
     * without the last summary line printed when the server stops.
     */
    @Test
    void shouldCountTheLoginInTheLastSummaryWhenStoppedWithinASecondOfIt() throws Exception {
        final int port = freePort();
        final CommandLine commandLine = Main.commandLine();
        commandLine.parseArgs("soup", "serve", "--port", String.valueOf(port));
        final SoupCommand.Serve serve = commandLine.getSubcommands().get("soup").getSubcommands().get("serve").getCommand();
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        final Thread server = Thread.ofPlatform().start(() -> serve.run(out));
        try (Reactor reactor = new Reactor()) {
            final boolean[] loggedIn = new boolean[1];
            final SoupBinTcpClient client = new SoupBinTcpClient(reactor, new SoupBinTcpClientOptions()
                .addresses(new InetSocketAddress(InetAddress.getLoopbackAddress(), port)).fromSequence(1),
                new dev.peregrine.soup.SoupBinTcpClientListener() {
                    @Override
                    public void onSequencedData(final long sequence, final MemorySegment buffer, final long offset,
                        final int length) {
                    }

                    @Override
                    public void onLoginAccepted(final String session, final long sequence) {
                        loggedIn[0] = true;
                    }
                });
            client.start(); // retries until the server listens
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!loggedIn[0] && System.nanoTime() < deadline) {
                reactor.doWork();
            }
            assertThat(loggedIn[0]).isTrue();
            server.interrupt();
            server.join(30_000);
            client.close();
        }
        final List<String> lines = bytes.toString(StandardCharsets.UTF_8).strip().lines().toList();
        assertThat(lines.getLast()).startsWith("soup serve: stopped: ").contains(" logins=1 ").contains(" rejected=0 ");
    }

    @Test
    void shouldExitOneWhenTheFeedIsNotTheTestFeeds() throws Exception {
        final int[] port = new int[1];
        final Thread thread;
        try (Reactor reactor = new Reactor(); MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("X", 64, 1 << 16)) {
            final SoupBinTcpSession[] session = new SoupBinTcpSession[1];
            final SoupBinTcpServer server = new SoupBinTcpServer(reactor, new SoupBinTcpServerOptions(),
                (u, p, s) -> SoupLoginDecision.accept(session[0]), (id, s, b, o, l) -> { });
            session[0] = server.addSession("PEREGRINE", store);
            final MemorySegment message = Arena.ofAuto().allocate(SoupCommand.MESSAGE_LENGTH);
            SoupCommand.feedMessage(message, 1);
            session[0].publish(message, 0, SoupCommand.MESSAGE_LENGTH);
            SoupCommand.feedMessage(message, 7); // message 2 carries the test feed's message 7
            session[0].publish(message, 0, SoupCommand.MESSAGE_LENGTH);
            session[0].end();
            server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            while (server.localAddress() == null) {
                reactor.doWork();
            }
            port[0] = ((InetSocketAddress)server.localAddress()).getPort();
            final AtomicInteger code = new AtomicInteger(-1);
            thread = Thread.ofPlatform().start(() -> code.set(execute(new StringWriter(), "soup", "connect", "--port",
                String.valueOf(port[0]), "--verify", "--seconds", "60")));
            while (thread.isAlive()) {
                reactor.doWork();
            }
            server.close();
            assertThat(code.get()).isEqualTo(1);
        }
    }

    /** A UDP port whose next one is free too (a MoldUDP64 feed and its re-request server). */
    private static int freeUdpPortPair() throws Exception {
        for (int attempt = 0; attempt < 20; attempt++) {
            try (DatagramSocket feed = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
                final int port = feed.getLocalPort();
                if (port < 65535) {
                    try (DatagramSocket requests = new DatagramSocket(port + 1, InetAddress.getLoopbackAddress())) {
                        assertThat(requests.getLocalPort()).isEqualTo(port + 1);
                        return port;
                    } catch (final java.net.BindException taken) {
                        // try another
                    }
                }
            }
        }
        throw new AssertionError("no two free UDP ports in a row in 20 attempts");
    }

    /**
     * The gateway from the command line: 'mold publish' (5% of its packets dropped on purpose) into 'soup serve
     * --from-mold', followed by 'soup connect --verify' to End of Session: every message once, in order, its bytes
     * mold publish's (exit 0).
     */
    @Test
    void shouldServeAMoldPublishFeedThroughTheGatewayToAVerifyingClient() throws Exception {
        final String soupPort = String.valueOf(freePort());
        final int moldPort = freeUdpPortPair();
        final AtomicInteger served = new AtomicInteger(-1);
        final AtomicInteger published = new AtomicInteger(-1);
        final Thread gateway = Thread.ofPlatform().start(() -> served.set(execute(new StringWriter(),
            "soup", "serve", "--port", soupPort, "--from-mold", "127.0.0.1:" + moldPort, "--mold-start", "1")));
        final Thread publisher = Thread.ofPlatform().start(() -> published.set(execute(new StringWriter(),
            "mold", "publish", "--group", "127.0.0.1", "--port", String.valueOf(moldPort), "--count", "2000",
            "--rate", "20000", "--size", "16", "--loss", "0.05", "--linger", "3s")));
        try {
            final int code = execute(new StringWriter(), "soup", "connect", "--port", soupPort, "--verify", "--seconds", "60");
            assertThat(code).isZero();
        } finally {
            gateway.interrupt();
            gateway.join(30_000);
            publisher.join(30_000);
        }
        assertThat(served.get()).isZero();
        assertThat(published.get()).isZero();
    }

    @Test
    void shouldRefuseTestFeedOptionsOnAGatewayAndGatewayOptionsWithoutOne() {
        final StringWriter err = new StringWriter();
        assertThat(execute(err, "soup", "serve", "--from-mold", "none:5000", "--count", "5")).isEqualTo(2);
        assertThat(err.toString().strip().lines()).hasSize(1);
        assertThat(err.toString()).contains("--count").contains("--from-mold");
        final StringWriter err2 = new StringWriter();
        assertThat(execute(err2, "soup", "serve", "--mold-start", "1")).isEqualTo(2);
        assertThat(err2.toString().strip().lines()).hasSize(1);
        assertThat(err2.toString()).contains("--mold-start").contains("--from-mold");
    }

    @Test
    void shouldRefuseAPortInUseWithOneLineAndExitCode2() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            final StringWriter err = new StringWriter();
            final int code = execute(err, "soup", "serve", "--port", String.valueOf(taken.getLocalPort()), "--seconds", "5");
            assertThat(code).isEqualTo(2);
            assertThat(err.toString().strip().lines()).hasSize(1);
            assertThat(err.toString()).contains("--port").contains("cannot be used");
        }
    }
}
