package dev.peregrine.examples.mold;

import dev.peregrine.testkit.Needs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code mold publish} and {@code mold listen} over IPv6 loopback: a unicast feed to {@code ::1} with a fifth of its
 * packets dropped, every message recovered from the request server at {@code ::1}, as over IPv4.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MoldAppsIpv6Test {
    @Test
    void shouldDeliverAndRecoverAWholeSessionOverIpv6Loopback() throws Exception {
        final InetAddress loopback = InetAddress.getByName("::1");
        final int port = freePortPair(loopback);
        final ByteArrayOutputStream listened = new ByteArrayOutputStream();
        final CompletableFuture<Long> listener = CompletableFuture.supplyAsync(() -> new MoldListenerApp(null, port, null,
            new InetSocketAddress(loopback, port + 1), 1, 30).run(new PrintStream(listened, true, StandardCharsets.UTF_8)));

        new MoldPublisherApp(loopback, port, null, port + 1, "PEREGRINE", 2000, 0.2, 16, 200, null)
            .run(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

        final long problems = listener.get(40, TimeUnit.SECONDS);
        final String out = listened.toString(StandardCharsets.UTF_8);
        assertThat(problems).as(out).isZero();
        assertThat(out).contains("re-requests to /[0:0:0:0:0:0:0:1]:" + (port + 1))
            .containsPattern("END_OF_SESSION +session=PEREGRINE next=201 delivered=200 ");
    }

    /** A port whose next one is free too, on {@code address}; skips the test where IPv6 loopback is missing. */
    private static int freePortPair(final InetAddress address) throws Exception {
        for (int attempt = 0; attempt < 50; attempt++) {
            final int port;
            try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(address, 0))) {
                port = probe.getLocalPort();
            } catch (final SocketException ex) {
                Needs.configuration("IPv6 loopback", false, "no ::1 here: " + ex.getMessage());
                throw ex;
            }
            if (port < 65_535) {
                try (DatagramSocket next = new DatagramSocket(new InetSocketAddress(address, port + 1))) {
                    if (next.getLocalPort() == port + 1) {
                        return port;
                    }
                } catch (final SocketException ex) {
                    // taken: try another
                }
            }
        }
        throw new IllegalStateException("no two free UDP ports in a row on " + address);
    }
}
