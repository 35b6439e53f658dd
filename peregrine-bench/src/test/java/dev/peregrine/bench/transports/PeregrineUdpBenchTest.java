package dev.peregrine.bench.transports;

import dev.peregrine.testkit.Needs;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
import dev.peregrine.testkit.AllocationMeter;
import dev.peregrine.udp.UdpEndpoint;
import dev.peregrine.peers.support.FreePorts;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.DatagramSocket;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 30 000 in-process round trips through each UDP adapter: each echoed once, in order, and nothing allocated per
 * message;
 * peregrine-udp both on its busy-spin path (connected read/write endpoints polled by their own threads)
 * and on its reactor path, and the same for peregrine-mold.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PeregrineUdpBenchTest {
    @SuppressWarnings("try") // the responder only has to run while the client talks to it
    @ParameterizedTest(name = "{0} busySpin={1}")
    @CsvSource({"peregrine-udp, true", "peregrine-udp, false", "peregrine-mold, true", "peregrine-mold, false"})
    void shouldEchoEveryMessageOnceInOrderWithoutAllocating(final String name, final boolean busySpin) throws Exception {
        final BenchTransport transport = Transports.byName(name);
        final BenchConfig config = new BenchConfig("127.0.0.1", FreePorts.block("127.0.0.1", 6), 256, Path.of("target"), busySpin);
        assertThat(transport.path()).isEqualTo("udp");
        assertThat(transport.unavailableReason(config)).isNull();
        final long[] sequence = {0};
        final long[] outOfOrder = {0};
        final AllocationMeter.Windows measured;
        final Responder responder = transport.startResponder(config);
        try (responder; PingClient client = transport.connect(config)) {
            final Runnable roundTrip = () -> {
                client.send(++sequence[0]);
                outOfOrder[0] += client.receive() == sequence[0] ? 0 : 1;
            };
            // zero tolerance once the JIT has settled: the first whole set of ten windows that allocates nothing, at most 5
            measured = AllocationMeter.firstCleanSet(10_000, 2_000, 10, 5, roundTrip);
        }

        // read once the responder has stopped: it counts an echo after sending it
        assertThat(sequence[0]).isEqualTo(10_000 + 10L * 2_000 * measured.sets());
        assertThat(outOfOrder[0]).as("every echo is the message just sent").isZero();
        assertThat(responder.messages()).as("each message echoed once").isEqualTo(sequence[0]);
        assertThat(measured.totalBytes()).as("client-thread bytes in the last set of %d (windows of 2 000 round trips)",
            measured.sets()).isZero();
    }

    /** The harness's fixed-rate mode keeps several messages in flight: one poll may bring several echoes. */
    @SuppressWarnings("try") // the responder only has to run while the client talks to it
    @ParameterizedTest(name = "{0} busySpin={1}")
    @CsvSource({"peregrine-udp, true", "peregrine-udp, false", "peregrine-mold, true", "peregrine-mold, false"})
    void shouldHandBackEveryEchoInOrderWithSeveralMessagesInFlight(final String name, final boolean busySpin) throws Exception {
        final BenchTransport transport = Transports.byName(name);
        final BenchConfig config = new BenchConfig("127.0.0.1", FreePorts.block("127.0.0.1", 6), 256, Path.of("target"), busySpin);
        final Responder responder = transport.startResponder(config);
        try (responder; PingClient client = transport.connect(config)) {
            long sent = 0;
            long expected = 0;
            for (int burst = 0; burst < 200; burst++) {
                for (int i = 0; i < 8; i++) {
                    client.send(sent++);
                }
                while (expected < sent) {
                    assertThat(client.receive()).as("echo after %d of %d sent", expected, sent).isEqualTo(expected);
                    expected++;
                }
            }
            assertThat(expected).isEqualTo(1600);
        }
        assertThat(responder.messages()).as("each message echoed once").isEqualTo(1600);
    }

    /**
     * The busy-spin client reads one datagram per poll, as the C floor's loop does: with two echoes waiting, a poll
     * hands on the first and leaves the second in the socket, so no second recv(2) (which would find the socket
     * empty in a ping-pong) runs between an echo's arrival and the caller's clock.
     */
    @SuppressWarnings("try") // the responder only has to run while the client talks to it
    @Test
    void shouldReadOneDatagramPerPollOnTheBusySpinPath() throws Exception {
        final BenchConfig config = new BenchConfig("127.0.0.1", FreePorts.block("127.0.0.1", 6), 32, Path.of("target"), true);
        final Responder responder = Transports.byName("peregrine-udp").startResponder(config);
        try (responder; PingClient client = Transports.byName("peregrine-udp").connect(config)) {
            final UdpEndpoint endpoint = ((PeregrineUdpBench.Client)client).endpoint;
            client.send(1);
            client.send(2);
            while (responder.messages() < 2) { // the class's timeout ends a run where they never come
                Thread.onSpinWait();
            }

            long first;
            while ((first = client.poll()) < 0) {
                Thread.onSpinWait();
            }
            assertThat(first).isEqualTo(1);
            assertThat(endpoint.datagramsReceived()).as("datagrams read by the poll that brought the first echo").isEqualTo(1);
            assertThat(client.receive()).isEqualTo(2);
            assertThat(endpoint.datagramsReceived()).isEqualTo(2);
        }
    }

    /** The busy-spin endpoints take the native socket where it is available, unless the property says no; the description says which. */
    @SuppressWarnings("try") // the responder only has to run while the client connects
    @ParameterizedTest(name = "peregrine.udp.native={0}")
    @CsvSource({"true", "false"})
    void shouldTakeTheNativeSocketUnlessTheSystemPropertySaysNoAndSayWhichPathRan(final boolean nativeSocket) throws Exception {
        Needs.platform("the native UDP socket (recv/send through FFM)",
            dev.peregrine.udp.UdpEndpoint::nativeSocketUnavailableReason);
        final PeregrineUdpBench transport = new PeregrineUdpBench();
        final BenchConfig config = new BenchConfig("127.0.0.1", FreePorts.block("127.0.0.1", 6), 256, Path.of("target"), true);
        System.setProperty(PeregrineUdpBench.NATIVE_PROPERTY, Boolean.toString(nativeSocket));
        try (Responder responder = transport.startResponder(config); PingClient client = transport.connect(config)) {
            assertThat(((PeregrineUdpBench.Client)client).endpoint.isNativeSocket()).isEqualTo(nativeSocket);
            assertThat(transport.description()).contains(nativeSocket ? "busy-spin socket path: native recv/send through FFM"
                : "busy-spin socket path: JDK DatagramChannel (-Dperegrine.udp.native=false)");
            assertThat(transport.jvmArguments()).containsExactly("-Dperegrine.udp.native=" + nativeSocket);
            client.send(1);
            assertThat(client.receive()).isEqualTo(1);
        } finally {
            System.clearProperty(PeregrineUdpBench.NATIVE_PROPERTY);
        }
    }

    /**
     * The native socket is IPv4 only: with an IPv6 host every endpoint, the busy-spin ones too, takes the JDK
     * DatagramChannel, and the description says so, instead of the responder failing on the native socket's refusal.
     */
    @SuppressWarnings("try") // the responder only has to run while the client talks to it
    @ParameterizedTest(name = "{0} busySpin={1}")
    @CsvSource({"peregrine-udp, true", "peregrine-udp, false", "peregrine-mold, true", "peregrine-mold, false"})
    void shouldEchoOverIpv6LoopbackOnTheJdkChannel(final String name, final boolean busySpin) throws Exception {
        try (DatagramSocket probe = new DatagramSocket(new java.net.InetSocketAddress("::1", 0))) {
            Needs.configuration("IPv6 loopback", probe.getLocalPort() > 0, "::1 gave no port");
        } catch (final java.net.SocketException ex) {
            Needs.configuration("IPv6 loopback", false, "::1 cannot be bound: " + ex.getMessage());
        }
        final BenchTransport transport = Transports.byName(name);
        final BenchConfig config = new BenchConfig("::1", FreePorts.block("::1", 6), 256, Path.of("target"), busySpin);
        final Responder responder = transport.startResponder(config);
        try (responder; PingClient client = transport.connect(config)) {
            for (long sequence = 1; sequence <= 100; sequence++) {
                client.send(sequence);
                assertThat(client.receive()).isEqualTo(sequence);
            }
            if (client instanceof PeregrineUdpBench.Client udp) {
                assertThat(udp.endpoint.isNativeSocket()).isFalse();
            }
        }
        assertThat(responder.messages()).as("each message echoed once").isEqualTo(100);
        if (dev.peregrine.udp.UdpEndpoint.nativeSocketUnavailableReason() == null) {
            assertThat(new PeregrineUdpBench().description()).contains(PeregrineUdpBench.IPV6_PATH);
        }
    }
}
