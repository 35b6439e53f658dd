package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.EventRecorder;
import dev.peregrine.counters.CounterTypes;
import dev.peregrine.counters.CountersManager;
import dev.peregrine.counters.CountersReader;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/** The TCP transport's counters, read from its counters file, after an exchange whose every byte is known. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpCountersTest {
    private static final long POLL_LIMIT_NS = 10_000_000_000L;

    @TempDir
    Path dir;

    /** Every TCP counter as {@code name{label}} with the transport's own label cut to "t". */
    static Map<String, Long> tcpCounters(final CountersReader reader) {
        final Map<String, Long> counters = new TreeMap<>();
        reader.forEach((id, typeId, label, value) -> {
            final String name = CounterTypes.name(typeId);
            if (name.startsWith("peregrine_tcp_")) {
                counters.put(name + "{" + label.replaceFirst("^transport=tcp-\\d+", "t")
                    .replaceFirst("remote=\\S+", "remote=peer") + "}", value);
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

    private static long count(final EventRecorder recorder, final Class<? extends ChannelEvent> type) {
        return recorder.events().stream().filter(type::isInstance).count();
    }

    @Test
    void shouldCountEveryFrameByteRejectionAndCloseOfAScriptedExchange() throws Exception {
        final List<Throwable> errors = new CopyOnWriteArrayList<>();
        final TcpTransport[] transport = new TcpTransport[1];
        final ChannelHandler echo = new ChannelHandler() {
            @Override
            public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
                transport[0].send(channelId, buffer, offset, length);
            }
        };
        final EventRecorder recorder = new EventRecorder(echo);
        try (CountersManager counters = CountersManager.create(dir.resolve("tcp.counters"), 256, 0);
             Reactor reactor = new Reactor(new ReactorOptions().errorHandler(errors::add).counters(counters));
             CountersReader reader = CountersReader.open(counters.file());
             Socket peer = new Socket()) {
            transport[0] = new TcpTransport(reactor, new TcpOptions().framing(Framing.parse("length:4be")).maxFrameLength(1024),
                recorder);
            final long serverId = transport[0].listen(TcpTestRig.ANY_LOOPBACK_PORT);
            pollUntil(reactor, () -> transport[0].localAddress(serverId) != null);
            final InetSocketAddress address = (InetSocketAddress)transport[0].localAddress(serverId);
            peer.connect(address);
            pollUntil(reactor, () -> count(recorder, ChannelEvent.Accepted.class) == 1);
            final byte[] frame = {0, 0, 0, 3, 'a', 'b', 'c'};
            for (int i = 0; i < 3; i++) {
                peer.getOutputStream().write(frame);
            }
            pollUntil(reactor, () -> count(recorder, ChannelEvent.Message.class) == 3);
            final InputStream echoed = peer.getInputStream();
            int received = 0;
            while (received < 3 * frame.length) {
                reactor.doWork();
                received += echoed.available() > 0 ? echoed.read(new byte[echoed.available()]) : 0;
            }
            assertThat(received).isEqualTo(21);
            assertThat(tcpCounters(reader)).contains(
                entry("peregrine_tcp_bytes_in_total{t channel=" + recorder.events().stream()
                    .filter(ChannelEvent.Accepted.class::isInstance).map(ChannelEvent.Accepted.class::cast)
                    .findFirst().orElseThrow().channelId() + " remote=peer}", 21L));

            peer.getOutputStream().write(new byte[] {(byte)0xFF, (byte)0xFF, (byte)0xFF, (byte)0xFF});
            pollUntil(reactor, () -> count(recorder, ChannelEvent.Closed.class) == 1);
            try (Socket quitter = new Socket()) {
                quitter.connect(address);
                pollUntil(reactor, () -> count(recorder, ChannelEvent.Accepted.class) == 2);
            }
            pollUntil(reactor, () -> count(recorder, ChannelEvent.Closed.class) == 2);

            final Map<String, Long> expected = new TreeMap<>();
            expected.put("peregrine_tcp_bytes_in_total{t}", 25L);
            expected.put("peregrine_tcp_bytes_out_total{t}", 21L);
            expected.put("peregrine_tcp_messages_in_total{t}", 3L);
            expected.put("peregrine_tcp_messages_out_total{t}", 3L);
            expected.put("peregrine_tcp_back_pressure_events_total{t}", 0L);
            expected.put("peregrine_tcp_paused_reading_nanoseconds_total{t}", 0L);
            expected.put("peregrine_tcp_frames_rejected_total{t reason=malformed}", 1L);
            expected.put("peregrine_tcp_frames_rejected_total{t reason=receive-buffer-full}", 0L);
            expected.put("peregrine_tcp_connections_accepted_total{t}", 2L);
            expected.put("peregrine_tcp_connections_open{t}", 0L);
            expected.put("peregrine_tcp_connections_closed_total{t reason=by_peer}", 1L);
            expected.put("peregrine_tcp_connections_closed_total{t reason=reset}", 0L);
            expected.put("peregrine_tcp_connections_closed_total{t reason=local}", 0L);
            expected.put("peregrine_tcp_connections_closed_total{t reason=error}", 1L);
            assertThat(tcpCounters(reader)).as("the transport's counters; the channels' are freed with them")
                .isEqualTo(expected);
            assertThat(recorder.events().stream().filter(ChannelEvent.Closed.class::isInstance)
                .map(e -> ((ChannelEvent.Closed)e).reason()).toList()).containsExactly(CloseReason.ERROR, CloseReason.BY_PEER);
            assertThat(errors).isEmpty();
            transport[0].close();
            assertThat(tcpCounters(reader)).isEmpty();
        }
    }

    @Test
    void shouldCountAConnectThatFailsAfterItsSocketIsMadeOnce() throws Exception {
        final List<Throwable> errors = new CopyOnWriteArrayList<>();
        final EventRecorder recorder = new EventRecorder(null);
        try (CountersManager counters = CountersManager.inMemory(256, 0);
             ServerSocket listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            final Reactor reactor = new Reactor(new ReactorOptions().errorHandler(errors::add).counters(counters));
            final TcpTransport transport = new TcpTransport(reactor, new TcpOptions(), recorder);
            reactor.close(); // its selector with it: the socket is made and connects, and then cannot be registered
            final int allocatedBefore = counters.allocatedCount();
            final long openBefore = transport.counters().open.get();

            final long id = transport.connect(listening.getLocalSocketAddress());
            assertThat(id).isPositive();
            assertThat(transport.counters().open.get()).as("one connection open, while it fails").isEqualTo(openBefore + 1);
            transport.abort(id);

            assertThat(recorder.events()).containsExactly(new ChannelEvent.Closed(id, CloseReason.LOCAL,
                "aborted by the application"));
            assertThat(transport.counters().open.get()).as("the open gauge").isEqualTo(openBefore);
            assertThat(counters.allocatedCount()).as("the channel's counters were freed").isEqualTo(allocatedBefore);
            transport.close();
        }
        assertThat(errors).isEmpty();
    }
}
