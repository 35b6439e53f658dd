package dev.peregrine.mold;

import dev.peregrine.reactor.Reactor;
import dev.peregrine.udp.UdpEndpoint;
import dev.peregrine.udp.UdpOptions;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.SplittableRandom;

/**
 * A seeded, deterministic UDP relay between a publisher and several listeners that drops, duplicates,
 * truncates and reorders datagrams, independently for each listener.
 */
final class FaultInjectingRelay {
    private final UdpEndpoint endpoint;
    private final InetSocketAddress[] targets;
    private final SplittableRandom[] randoms;
    private final MemorySegment[] held;
    private final int[] heldLength;
    private final double drop;
    private final double duplicate;
    private final double truncate;
    private final double reorder;
    long dropped;
    long duplicated;
    long truncated;
    long reordered;

    FaultInjectingRelay(final Reactor reactor, final long seed, final double drop, final double duplicate,
        final double truncate, final double reorder, final InetSocketAddress... targets) {
        this.targets = targets;
        this.drop = drop;
        this.duplicate = duplicate;
        this.truncate = truncate;
        this.reorder = reorder;
        this.randoms = new SplittableRandom[targets.length];
        this.held = new MemorySegment[targets.length];
        this.heldLength = new int[targets.length];
        for (int i = 0; i < targets.length; i++) {
            randoms[i] = new SplittableRandom(seed + i);
            held[i] = MemorySegment.ofArray(new byte[65536]);
            heldLength[i] = -1;
        }
        this.endpoint = UdpEndpoint.open(reactor, new UdpOptions().localAddress(MoldFixture.loopback(0))
            .receiveBufferSize(4 << 20).sendBufferSize(4 << 20), this::onDatagram);
    }

    InetSocketAddress address() {
        return endpoint.localAddress();
    }

    private void onDatagram(final UdpEndpoint source, final MemorySegment buffer, final long offset, final int length,
        final InetSocketAddress sender, final long nowNs) {
        for (int i = 0; i < targets.length; i++) {
            final SplittableRandom random = randoms[i];
            final double roll = random.nextDouble();
            if (roll < drop) {
                dropped++;
                releaseHeld(i);
                continue;
            }
            int sendLength = length;
            if (random.nextDouble() < truncate && length > 1) {
                sendLength = 1 + random.nextInt(length - 1);
                truncated++;
            }
            if (heldLength[i] < 0 && random.nextDouble() < reorder) {
                MemorySegment.copy(buffer, offset, held[i], 0, sendLength);
                heldLength[i] = sendLength; // goes out after the next datagram
                reordered++;
                continue;
            }
            endpoint.sendTo(buffer, offset, sendLength, targets[i]);
            if (random.nextDouble() < duplicate) {
                endpoint.sendTo(buffer, offset, sendLength, targets[i]);
                duplicated++;
            }
            releaseHeld(i);
        }
    }

    private void releaseHeld(final int i) {
        if (heldLength[i] >= 0) {
            endpoint.sendTo(held[i], 0, heldLength[i], targets[i]);
            heldLength[i] = -1;
        }
    }
}
