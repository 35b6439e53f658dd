package dev.peregrine.udp;

import dev.peregrine.channel.EventRecorder;
import dev.peregrine.handoff.CommandRingOptions;
import dev.peregrine.handoff.ReactorCommandRing;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;

import java.lang.foreign.ValueLayout;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A UDP channel fed through the command ring from another thread: the datagrams leave in the producer's order, a
 * close travels in line, and a send committed after it is discarded and reported, never sent.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UdpCommandRingTest {
    @Test
    void shouldSendInOrderThenCloseThenDiscardWhatFollowsTheClose() throws Exception {
        final List<Throwable> errors = new CopyOnWriteArrayList<>();
        try (Reactor reactor = new Reactor(new ReactorOptions().errorHandler(errors::add));
             DatagramSocket peer = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            final UdpTransport transport = new UdpTransport(reactor, new UdpOptions(), new EventRecorder());
            final ReactorCommandRing ring = new ReactorCommandRing(reactor, new CommandRingOptions());
            final int index = ring.register(transport);
            final long id = transport.connect(peer.getLocalSocketAddress());
            final Thread producer = new Thread(() -> {
                for (long i = 0; i < 3; i++) {
                    final long claim = ring.tryClaim(index, id, 8);
                    ring.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED, ring.offset(claim), i);
                    ring.commit(claim);
                }
                ring.close(index, id);
                final long late = ring.tryClaim(index, id, 8);
                ring.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED, ring.offset(late), 99L);
                ring.commit(late);
            });
            producer.start();
            producer.join();
            final long deadline = System.nanoTime() + 30_000_000_000L;
            while (ring.delivered() + ring.discarded() < 5) {
                reactor.doWork();
                assertThat(System.nanoTime()).as("ring not drained").isLessThan(deadline);
            }
            final byte[] bytes = new byte[64];
            for (long i = 0; i < 3; i++) {
                final DatagramPacket packet = new DatagramPacket(bytes, bytes.length);
                peer.receive(packet);
                assertThat(packet.getLength()).isEqualTo(8);
                assertThat(ByteBuffer.wrap(bytes, 0, 8).order(java.nio.ByteOrder.nativeOrder()).getLong()).isEqualTo(i);
            }
            assertThat(ring.delivered()).as("three sends and the close").isEqualTo(4);
            assertThat(ring.discarded()).as("the send after the close").isEqualTo(1);
            assertThat(errors).hasSize(1);
            assertThat(errors.get(0)).hasMessageContaining("channelId=" + id);
            ring.close();
        }
    }
}
