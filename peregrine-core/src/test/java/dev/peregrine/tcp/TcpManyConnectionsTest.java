package dev.peregrine.tcp;

import dev.peregrine.testkit.Needs;
import com.sun.management.UnixOperatingSystemMXBean;
import dev.peregrine.channel.ChannelEvent;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static dev.peregrine.tcp.TcpTestRig.text;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * 1 000 client connections and their 1 000 accepted peers, all on one reactor, each exchanging its own
 * message; the reactor never confuses them.
 */
@Tag("slow")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TcpManyConnectionsTest {
    private static final int CONNECTIONS = 1000;

    @Test
    void shouldServeAThousandConnectionsAtOnceOnOneReactor() {
        final OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        Needs.platform("a Unix open-file limit", os instanceof UnixOperatingSystemMXBean, "the open-file limit is unknown on this OS");
        final long limit = ((UnixOperatingSystemMXBean)os).getMaxFileDescriptorCount();
        final long open = ((UnixOperatingSystemMXBean)os).getOpenFileDescriptorCount();
        Needs.configuration("ulimit -n above " + (2 * CONNECTIONS + 100 + open), limit - open > 2 * CONNECTIONS + 100,
            "ulimit -n is " + limit + " with " + open + " open; " + (2 * CONNECTIONS + 100) + " more are needed");

        final TcpOptions options = new TcpOptions().framing(Framing.line()).maxFrameLength(64).receiveBufferSize(128)
            .outboundBufferSize(128);
        try (TcpTestRig rig = new TcpTestRig(options)) {
            final InetSocketAddress address = rig.listen();
            final Map<Long, String> expected = new HashMap<>();
            for (int i = 0; i < CONNECTIONS; i++) {
                expected.put(rig.transport.connect(address), "client " + i);
            }
            rig.pollUntil(() -> rig.count(ChannelEvent.Connected.class) == CONNECTIONS
                && rig.count(ChannelEvent.Accepted.class) == CONNECTIONS);
            for (final Map.Entry<Long, String> client : expected.entrySet()) {
                final byte[] bytes = client.getValue().getBytes(StandardCharsets.US_ASCII);
                assertThat(rig.transport.send(client.getKey(), text(client.getValue()), 0, bytes.length)).isNotNegative();
            }
            rig.pollUntil(() -> rig.count(ChannelEvent.Message.class) == CONNECTIONS);
            // echo each message back on the accepted connection it arrived on
            for (final ChannelEvent.Message message : rig.all(ChannelEvent.Message.class)) {
                final byte[] bytes = message.bytes();
                assertThat(rig.transport.send(message.channelId(), java.lang.foreign.MemorySegment.ofArray(bytes), 0,
                    bytes.length)).isNotNegative();
            }
            rig.pollUntil(() -> rig.count(ChannelEvent.Message.class) == 2 * CONNECTIONS);

            final Map<Long, String> echoed = new HashMap<>();
            for (final ChannelEvent.Message message : rig.all(ChannelEvent.Message.class)) {
                if (expected.containsKey(message.channelId())) {
                    echoed.put(message.channelId(), new String(message.bytes(), StandardCharsets.US_ASCII));
                }
            }
            assertThat(echoed).isEqualTo(expected);
            assertThat(rig.errors).isEmpty();
        }
    }
}
