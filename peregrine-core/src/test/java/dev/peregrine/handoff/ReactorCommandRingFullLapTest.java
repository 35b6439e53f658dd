package dev.peregrine.handoff;

import dev.peregrine.channel.Transport;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;

import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A ring filled to the last byte, drained in one cycle whose limit exceeds what it holds: each command is delivered
 * once. The drain zeroes what it consumed only at its end, so a drain that went past one lap met its own first
 * record again and delivered it a second time (32 commands came out as 256).
 */
@Timeout(30)
class ReactorCommandRingFullLapTest {
    @Test
    void shouldDeliverAFullLapOnceWhenTheDrainLimitExceedsIt() {
        final long[] sends = new long[1];
        final Transport counting = new Transport() {
            @Override
            public long send(final long channelId, final MemorySegment buffer, final long offset, final int length) {
                sends[0]++;
                return 0;
            }

            @Override
            public void close(final long id) {
            }

            @Override
            public void abort(final long id) {
            }

            @Override
            public long listen(final SocketAddress localAddress) {
                return 0;
            }

            @Override
            public long connect(final SocketAddress remoteAddress) {
                return 0;
            }

            @Override
            public void close() {
            }
        };
        try (Reactor reactor = new Reactor(new ReactorOptions())) {
            // 24-byte header + 8-byte payload: 32 records fill 1024 bytes exactly
            final ReactorCommandRing ring = new ReactorCommandRing(reactor, new CommandRingOptions().capacity(1024)
                .drainLimit(256));
            final int index = ring.register(counting);
            final MemorySegment message = MemorySegment.ofArray(new byte[8]);
            int committed = 0;
            while (ring.offer(index, 1, message, 0, 8) == 0) {
                committed++;
            }
            assertThat(committed).isEqualTo(32);

            ring.doWork(0);
            ring.doWork(0);

            assertThat(sends[0]).isEqualTo(32);
            assertThat(ring.delivered()).isEqualTo(32);
            assertThat(ring.offer(index, 1, message, 0, 8)).as("the ring is empty again").isZero();
        }
    }
}
