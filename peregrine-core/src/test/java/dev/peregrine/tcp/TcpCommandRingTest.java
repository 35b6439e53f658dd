package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.handoff.CommandRingOptions;
import dev.peregrine.handoff.ReactorCommandRing;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.lang.foreign.ValueLayout;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Commands handed to a TCP channel through the reactor's command ring from other threads: what one cycle drains
 * leaves in one write, and under three producers the peer reads every message exactly once, in each producer's
 * order.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TcpCommandRingTest {
    private static final long WAIT_LIMIT_NS = 60_000_000_000L;

    /** Claims a 12-byte message (producer, sequence), writes it in place and commits; a code if refused. */
    private static long offer(final ReactorCommandRing ring, final int transport, final long channelId,
                              final int producer, final long sequence) {
        final long claim = ring.tryClaim(transport, channelId, 12);
        if (claim < 0) {
            return claim;
        }
        final long offset = ring.offset(claim);
        ring.buffer().set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), offset, producer);
        ring.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), offset + 4, sequence);
        return ring.commit(claim);
    }

    private static long accept(final TcpTestRig rig, final Socket peer) throws Exception {
        peer.connect(rig.listen());
        rig.pollUntil(() -> rig.has(ChannelEvent.Accepted.class));
        return rig.first(ChannelEvent.Accepted.class).channelId();
    }

    @Test
    void shouldWriteAHundredHandOversOfOneCycleInOneWrite() throws Exception {
        final TcpOptions options = new TcpOptions().framing(Framing.parse("length:4be"));
        try (TcpTestRig rig = new TcpTestRig(options); Socket peer = new Socket()) {
            final ReactorCommandRing ring = new ReactorCommandRing(rig.reactor, new CommandRingOptions());
            final int index = ring.register(rig.transport);
            final long id = accept(rig, peer);
            final long before = rig.transport.socketWrites(id);
            final Thread producer = new Thread(() -> {
                for (int i = 0; i < 100; i++) {
                    if (offer(ring, index, id, 0, i) != 0) {
                        throw new IllegalStateException("refused at " + i);
                    }
                }
            });
            producer.start();
            producer.join();
            rig.pollUntil(() -> ring.delivered() == 100 && rig.transport.pendingBytes(id) == 0);

            assertThat(rig.transport.socketWrites(id) - before).as("writes for 100 hand-overs").isEqualTo(1);
            final DataInputStream in = new DataInputStream(peer.getInputStream());
            for (int i = 0; i < 100; i++) {
                assertThat(in.readInt()).isEqualTo(12);
                assertThat(in.readInt()).isZero();
                assertThat(in.readLong()).isEqualTo(i);
            }
            assertThat(rig.errors).isEmpty();
            ring.close();
        }
    }

    @Test
    void shouldDeliverEveryMessageOfThreeProducersExactlyOnceInOrderToThePeer() throws Exception {
        final int producers = 3;
        final int perProducer = 100_000;
        final TcpOptions options = new TcpOptions().framing(Framing.parse("length:4be"));
        try (TcpTestRig rig = new TcpTestRig(options); Socket peer = new Socket()) {
            final ReactorCommandRing ring = new ReactorCommandRing(rig.reactor, new CommandRingOptions().capacity(1 << 14));
            final int index = ring.register(rig.transport);
            final long id = accept(rig, peer);
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final long[] next = new long[producers];
            final long[] read = {0};
            final Thread reader = new Thread(() -> {
                try {
                    final DataInputStream in = new DataInputStream(new BufferedInputStream(peer.getInputStream(), 1 << 16));
                    for (long i = 0; i < (long)producers * perProducer; i++) {
                        final int length = in.readInt();
                        final int producer = in.readInt();
                        final long sequence = in.readLong();
                        if (length != 12 || producer < 0 || producer >= producers || sequence != next[producer]) {
                            throw new IllegalStateException("frame " + i + ": length=" + length + ", producer="
                                + producer + ", sequence=" + sequence);
                        }
                        next[producer]++;
                    }
                    read[0] = (long)producers * perProducer;
                } catch (final Throwable ex) {
                    failure.compareAndSet(null, ex);
                }
            }, "peer-reader");
            reader.start();
            final Thread[] threads = new Thread[producers];
            for (int p = 0; p < producers; p++) {
                final int producer = p;
                threads[p] = new Thread(() -> {
                    final long deadline = System.nanoTime() + WAIT_LIMIT_NS;
                    for (long sequence = 0; sequence < perProducer && failure.get() == null; sequence++) {
                        while (offer(ring, index, id, producer, sequence) != 0) {
                            if (System.nanoTime() > deadline) {
                                failure.compareAndSet(null, new IllegalStateException("producer " + producer
                                    + " stuck at " + sequence));
                                return;
                            }
                            Thread.yield(); // two cores, shared: let the reactor and the peer run
                        }
                    }
                }, "producer-" + p);
                threads[p].start();
            }
            final long deadline = System.nanoTime() + WAIT_LIMIT_NS;
            while (reader.isAlive()) {
                rig.reactor.doWork();
                assertThat(System.nanoTime()).as("peer not done: delivered=%d, read=%s, refused=%d, flag=%s, pending=%d, "
                    + "failure=%s", ring.delivered(), java.util.Arrays.toString(next), ring.backPressured(),
                    ring.isBackPressured(index), rig.transport.pendingBytes(id), failure.get()).isLessThan(deadline);
            }
            for (final Thread thread : threads) {
                thread.join();
            }
            assertThat(failure.get()).isNull();
            assertThat(read[0]).isEqualTo((long)producers * perProducer);
            assertThat(next).containsOnly(perProducer);
            assertThat(ring.delivered()).isEqualTo((long)producers * perProducer);
            assertThat(ring.discarded()).isZero();
            // nothing more: a marker sent after the last message is the next thing the peer reads
            assertThat(offer(ring, index, id, 0, -1)).isZero();
            rig.pollUntil(() -> ring.delivered() == (long)producers * perProducer + 1);
            final DataInputStream in = new DataInputStream(peer.getInputStream());
            assertThat(in.readInt()).isEqualTo(12);
            assertThat(in.readInt()).isZero();
            assertThat(in.readLong()).isEqualTo(-1);
            assertThat(rig.errors).isEmpty();
            ring.close();
        }
    }
}
