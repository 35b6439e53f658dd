package dev.peregrine.udp;

import dev.peregrine.internal.jfr.FlightRecording;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A datagram too long for the receive buffer is dropped as truncated and recorded as a rejected frame. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class UdpJfrEventsTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @Test
    void shouldRecordATruncatedDatagramAsARejectedFrame() {
        final List<Integer> lengths = new ArrayList<>();
        try (FlightRecording recording = new FlightRecording();
             Reactor reactor = new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy()));
             UdpEndpoint client = UdpEndpoint.open(reactor, new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0)),
                 (endpoint, buffer, offset, length, sender, nowNs) -> { });
             UdpEndpoint server = UdpEndpoint.open(reactor, new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0))
                 .datagramBuffer(64), (endpoint, buffer, offset, length, sender, nowNs) -> lengths.add(length))) {
            final MemorySegment message = MemorySegment.ofArray(new byte[1000]);
            client.sendTo(message, 0, 1000, server.localAddress());
            client.sendTo(message, 0, 10, server.localAddress());
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (lengths.isEmpty() && System.nanoTime() < deadline) {
                reactor.doWork();
            }
            assertThat(lengths).containsExactly(10);

            assertThat(recording.named("FrameRejected").stream()
                .filter(event -> server.localAddress().toString().equals(event.getString("localAddress"))))
                .singleElement().satisfies(rejected -> {
                    assertThat(rejected.getString("transport")).isEqualTo("udp");
                    assertThat(rejected.getLong("channelId")).isZero();
                    assertThat(rejected.getString("remoteAddress")).isEqualTo(client.localAddress().toString());
                    assertThat(rejected.getString("reason"))
                        .isEqualTo("datagram of 64 bytes or more filled the whole receive buffer and was dropped as truncated");
                });
        }
    }
}
