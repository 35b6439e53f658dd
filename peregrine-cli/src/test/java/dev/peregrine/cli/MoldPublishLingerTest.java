package dev.peregrine.cli;

import dev.peregrine.cli.testing.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code mold publish --count N --linger D}: the request server goes on answering after End of Session, which is
 * repeated every 100 ms meanwhile, for a listener that asks again only when a packet arrives.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MoldPublishLingerTest {
    private static final int END_OF_SESSION = 0xFFFF;

    @Test
    void shouldParseALingerWithItsUnit() {
        final CommandLine line = Main.commandLine();
        line.parseArgs("mold", "publish", "--linger", "500ms");
        final MoldCommand.Publish publish = line.getSubcommands().get("mold").getSubcommands().get("publish").getCommand();
        assertThat(publish.lingerNs).isEqualTo(500_000_000L);

        final CommandLine byDefault = Main.commandLine();
        byDefault.parseArgs("mold", "publish");
        final MoldCommand.Publish defaults = byDefault.getSubcommands().get("mold").getSubcommands().get("publish").getCommand();
        assertThat(defaults.lingerNs).isEqualTo(30_000_000_000L);
    }

    @Test
    void shouldRefuseABadLingerInOneLine() {
        for (final String bad : new String[] {"30", "-1s", "1h", "s", "1.5s", "61m"}) {
            final CliRun cli = CliRun.execute("mold", "publish", "--linger", bad);
            assertThat(cli.code()).as(bad + ": " + cli.err()).isEqualTo(2);
            assertThat(cli.err().strip().lines().count()).as(cli.err()).isEqualTo(1);
            assertThat(cli.err()).contains("--linger", "'" + bad + "'", "ms, s or m").doesNotContain("\tat ");
        }
    }

    @Test
    void shouldSayTheIntervalInItsHelp() {
        final CliRun help = CliRun.execute("mold", "publish", "--help");
        assertThat(help.out()).contains("--linger").contains("every 100 ms").contains("30s");
    }

    /**
     * Linger 500 ms: End of Session goes out 1 + 5 times, and a request sent once the first has arrived is answered.
     * Without the linger the publisher sent 3, a heartbeat interval (1 s) apart.
     */
    @Test
    void shouldAnswerRequestsAndRepeatEndOfSessionWhileItLingers() throws Exception {
        try (DatagramChannel feed = DatagramChannel.open(); DatagramChannel requester = DatagramChannel.open()) {
            feed.setOption(StandardSocketOptions.SO_RCVBUF, 1 << 20);
            feed.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            requester.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            final int port = ((InetSocketAddress)feed.getLocalAddress()).getPort();
            final int requestPort = freePort();
            final CompletableFuture<CliRun> run = CompletableFuture.supplyAsync(() -> CliRun.execute("mold", "publish",
                "--group", "127.0.0.1", "--port", "" + port, "--request-port", "" + requestPort, "--count", "20",
                "--rate", "1000", "--session", "LINGER", "--linger", "500ms"));

            final ByteBuffer packet = ByteBuffer.allocate(2048).order(ByteOrder.BIG_ENDIAN);
            int endOfSession = 0;
            while (endOfSession == 0) {
                feed.receive(packet.clear());
                endOfSession += packet.getShort(18) == (short)END_OF_SESSION ? 1 : 0;
            }
            final ByteBuffer request = ByteBuffer.allocate(20).order(ByteOrder.BIG_ENDIAN);
            request.put("LINGER    ".getBytes(StandardCharsets.US_ASCII)).putLong(1).putShort((short)20).flip();
            requester.send(request, new InetSocketAddress(InetAddress.getLoopbackAddress(), requestPort));
            final ByteBuffer answer = ByteBuffer.allocate(2048).order(ByteOrder.BIG_ENDIAN);
            requester.receive(answer);
            assertThat(answer.getLong(10)).as("answered after End of Session").isEqualTo(1);
            assertThat(answer.getShort(18)).isEqualTo((short)20);

            final CliRun cli = run.get(30, TimeUnit.SECONDS);
            assertThat(cli.code()).as(cli.err()).isZero();
            assertThat(cli.out()).contains("re-requests answered for 0.5 s more, End of Session repeated every 100 ms");
            feed.configureBlocking(false);
            while (feed.receive(packet.clear()) != null) { // loopback: every packet sent is queued by the time run ends
                endOfSession += packet.getShort(18) == (short)END_OF_SESSION ? 1 : 0;
            }
            assertThat(endOfSession).isEqualTo(6);
        }
    }

    private static int freePort() throws IOException {
        try (DatagramChannel probe = DatagramChannel.open()) {
            probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return ((InetSocketAddress)probe.getLocalAddress()).getPort();
        }
    }
}
