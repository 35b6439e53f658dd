package dev.peregrine.udp;

import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.EventRecorder;
import dev.peregrine.counters.CounterTypes;
import dev.peregrine.counters.CountersManager;
import dev.peregrine.counters.CountersReader;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The UDP counters, read from the counters file, after a scripted exchange: the server's datagrams-in equal the
 * messages its recorded events hold, and every other value follows from the script.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UdpCountersTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final long POLL_LIMIT_NS = 10_000_000_000L;
    /** The script: lengths the client sends; those over the server's 64-byte buffer are truncated. */
    private static final int[] LENGTHS = {10, 1000, 20, 65, 64, 30, 1};
    private static final int SERVER_BUFFER = 64;

    @TempDir
    Path dir;

    @Test
    void shouldCountEveryDatagramInOutAndTruncatedOfAScriptedExchange() {
        final UdpTransport[] transport = new UdpTransport[1];
        final EventRecorder recorder = new EventRecorder(new ChannelHandler() {
            @Override
            public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
                transport[0].send(channelId, buffer, offset, length); // echo to the last sender
            }
        });
        final AtomicInteger echoes = new AtomicInteger();
        try (CountersManager counters = CountersManager.create(dir.resolve("udp.counters"), 64, 0);
             Reactor reactor = new Reactor(new ReactorOptions().counters(counters));
             CountersReader reader = CountersReader.open(counters.file())) {
            transport[0] = new UdpTransport(reactor, new UdpOptions().datagramBuffer(SERVER_BUFFER), recorder);
            final long serverId = transport[0].listen(new InetSocketAddress(LOOPBACK, 0));
            final InetSocketAddress serverAddress = transport[0].endpoint(serverId).localAddress();
            final UdpEndpoint client = UdpEndpoint.open(reactor, new UdpOptions().localAddress(new InetSocketAddress(LOOPBACK, 0)),
                (endpoint, buffer, offset, length, sender, nowNs) -> echoes.incrementAndGet());
            final MemorySegment message = Arena.ofAuto().allocate(1000);
            int delivered = 0;
            for (final int length : LENGTHS) {
                assertThat(client.sendTo(message, 0, length, serverAddress)).isEqualTo(length);
                delivered += length < SERVER_BUFFER ? 1 : 0; // a datagram filling the whole buffer may have been cut
            }
            final int expectedMessages = delivered;
            pollUntil(reactor, () -> echoes.get() == expectedMessages);

            final long recordedMessages = recorder.events().stream().filter(ChannelEvent.Message.class::isInstance).count();
            assertThat(recordedMessages).isEqualTo(4);
            final Map<String, Long> expected = new TreeMap<>();
            expected.put("peregrine_udp_datagrams_in_total{server}", recordedMessages);
            expected.put("peregrine_udp_datagrams_out_total{server}", recordedMessages);
            expected.put("peregrine_udp_truncated_total{server}", (long)LENGTHS.length - recordedMessages);
            expected.put("peregrine_udp_drops_total{server}", 0L);
            expected.put("peregrine_udp_datagrams_in_total{client}", recordedMessages);
            expected.put("peregrine_udp_datagrams_out_total{client}", (long)LENGTHS.length);
            expected.put("peregrine_udp_truncated_total{client}", 0L);
            expected.put("peregrine_udp_drops_total{client}", 0L);
            assertThat(udpCounters(reader, serverAddress, client.localAddress())).isEqualTo(expected);
            assertThat(transport[0].endpoint(serverId).truncated()).isEqualTo(3);
        }
    }

    /** Every UDP counter as {@code name{server|client}}, told apart by the local address in the label. */
    private static Map<String, Long> udpCounters(final CountersReader reader, final InetSocketAddress server,
        final InetSocketAddress client) {
        final Map<String, Long> counters = new TreeMap<>();
        final List<String> labels = List.of("udp=" + server, "udp=" + client);
        reader.forEach((id, typeId, label, value) -> {
            final String name = CounterTypes.name(typeId);
            if (name.startsWith("peregrine_udp_")) {
                final String side = label.startsWith(labels.get(0)) ? "server" : label.startsWith(labels.get(1)) ? "client" : label;
                counters.put(name + "{" + side + "}", value);
            }
        });
        return counters;
    }

    private static void pollUntil(final Reactor reactor, final BooleanSupplier condition) {
        final long deadline = System.nanoTime() + POLL_LIMIT_NS;
        while (!condition.getAsBoolean()) {
            reactor.doWork();
            assertThat(System.nanoTime()).as("condition not reached in time").isLessThan(deadline);
        }
    }
}
