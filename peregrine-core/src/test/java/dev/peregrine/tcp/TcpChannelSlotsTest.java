package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.EventRecorder;
import dev.peregrine.counters.CountersManager;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A server that accepts and loses many connections by its peers' fault (a reset, a malformed frame) gives every
 * channel's counter slots back: 3000 channels of 6 slots each would fill the 2048-slot file many times over.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TcpChannelSlotsTest {
    private static final int CHANNELS = 3000;
    private static final int BATCH = 50;

    @Test
    void shouldGiveBackEveryChannelsSlotsWhenPeersResetOrSendMalformedFrames() throws IOException {
        final List<Throwable> errors = new CopyOnWriteArrayList<>();
        try (CountersManager counters = CountersManager.inMemory(CountersManager.DEFAULT_SLOTS, 0)) {
            final Reactor reactor = new Reactor(new ReactorOptions().counters(counters).errorHandler(errors::add));
            final EventRecorder recorder = new EventRecorder();
            final TcpTransport transport = new TcpTransport(reactor, new TcpOptions(), recorder);
            final long server = transport.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            pollUntil(reactor, () -> transport.localAddress(server) != null);
            final SocketAddress address = transport.localAddress(server);
            final int before = counters.allocatedCount();

            final byte[] malformed = {(byte)0x7f, (byte)0xff, (byte)0xff, (byte)0xff}; // a length past maxFrameLength
            for (int done = 0; done < CHANNELS; done += BATCH) {
                final Socket[] peers = new Socket[BATCH];
                for (int i = 0; i < BATCH; i++) {
                    peers[i] = new Socket();
                    peers[i].connect(address);
                }
                final int accepted = done + BATCH;
                pollUntil(reactor, () -> count(recorder, ChannelEvent.Accepted.class) == accepted);
                assertThat(counters.allocatedCount()).as("each open channel holds its slots").isGreaterThan(before);
                for (int i = 0; i < BATCH; i++) {
                    if (i % 2 == 0) {
                        peers[i].setSoLinger(true, 0); // the peer resets the connection
                    } else {
                        peers[i].getOutputStream().write(malformed);
                    }
                }
                for (int i = 0; i < BATCH; i += 2) {
                    peers[i].close();
                }
                pollUntil(reactor, () -> count(recorder, ChannelEvent.Closed.class) == accepted);
                for (int i = 1; i < BATCH; i += 2) {
                    peers[i].close();
                }
            }

            assertThat(count(recorder, ChannelEvent.Closed.class)).isEqualTo(CHANNELS);
            assertThat(counters.allocatedCount()).isEqualTo(before);
            transport.close();
            reactor.close();
        }
        assertThat(errors).isEmpty();
    }

    private static long count(final EventRecorder recorder, final Class<?> type) {
        return recorder.events().stream().filter(type::isInstance).count();
    }

    private static void pollUntil(final Reactor reactor, final BooleanSupplier condition) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            reactor.doWork();
            assertThat(System.nanoTime()).as("condition not reached in time").isLessThan(deadline);
        }
    }
}
