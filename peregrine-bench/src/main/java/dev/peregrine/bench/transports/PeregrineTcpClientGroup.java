package dev.peregrine.bench.transports;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.SendResult;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchMessageLayout;
import dev.peregrine.peers.EchoReadiness;
import dev.peregrine.peers.PingClient;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.tcp.TcpTransport;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Several clients on one reactor that is never started: the caller's thread drives it inside any member's
 * {@link PingClient#poll()} when that member has no echo waiting, and each connection's echoes wait in a ring
 * of sequence numbers of their own. Sends take the same claim/commit path as {@link PeregrineTcpPingClient}.
 *
 * <p>The group lists the members an echo reached ({@link EchoReadiness}), so that a loop over a thousand members
 * polls those only, not every member that awaits an echo.
 */
final class PeregrineTcpClientGroup implements ChannelHandler, EchoReadiness {
    private final Reactor reactor;
    private final TcpTransport transport;
    private final Member[] members;
    private final int size;
    private final int replySize;
    /** Bytes of the sequence field ({@link BenchMessageLayout}). */
    private final int sequenceLength;
    private int connected;
    private int open;
    /** Duty cycles run so far: a member whose echoes are all taken runs one only if none ran since it last looked. */
    private long cycles;
    private String failure;
    private final ChannelIndex index;
    /** The members an echo reached, or whose connection closed, since the last {@link #pollReady}; each once. */
    private final int[] readyList;
    private final boolean[] readyListed;
    private int readyCount;

    private PeregrineTcpClientGroup(final BenchConfig config, final int count) {
        this.size = config.size();
        this.replySize = config.replySize();
        this.sequenceLength = config.sequenceLength();
        this.reactor = new Reactor(PeregrineTcpBench.reactorOptions(config, "peregrine-tcp-clients", count > 1));
        this.transport = new TcpTransport(reactor, PeregrineTcpBench.options(config, count > 1), this);
        this.members = new Member[count];
        this.index = new ChannelIndex(count);
        this.readyList = new int[count];
        this.readyListed = new boolean[count];
    }

    /**
     * Connects {@code count} clients on one reactor.
     *
     * @param config the run's configuration
     * @param count how many clients
     * @return the clients, to be used by one thread
     * @throws IOException if one does not connect within 10 s
     */
    static List<PingClient> connect(final BenchConfig config, final int count) throws IOException {
        final PeregrineTcpClientGroup group = new PeregrineTcpClientGroup(config, count);
        // echoes wait until their client's turn: room for many per client, bounded in all (a few MB)
        final int capacity = Math.min(1 << 16, Math.max(1 << 12, Integer.highestOneBit((1 << 22) / count)));
        for (int k = 0; k < count; k++) {
            group.members[k] = group.new Member(k, group.transport.connect(PeregrineTcpBench.address(config)), capacity);
            group.index.put(group.members[k].channelId, k);
        }
        group.open = count;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (group.connected < count && group.failure == null && System.nanoTime() < deadline) {
            group.reactor.doWork();
        }
        if (group.connected < count) {
            group.transport.close();
            group.reactor.close();
            throw new IOException(group.failure != null ? group.failure : group.connected + " of " + count
                + " connections to " + PeregrineTcpBench.address(config) + " completed in 10 s");
        }
        return new ArrayList<>(List.of(group.members));
    }

    /** The member of a channel, in constant time whatever the number of clients; null for an unknown id. */
    private Member member(final long channelId) {
        final int k = index.member(channelId);
        return k < 0 ? null : members[k];
    }

    @Override
    public void onConnected(final long id, final SocketAddress remoteAddress) {
        connected++;
    }

    @Override
    public void onConnectFailed(final long id, final String reason) {
        failure = reason;
    }

    @Override
    public void onClosed(final long id, final CloseReason reason, final String detail) {
        final Member member = member(id);
        if (member != null) {
            member.closed = "connection closed, " + reason + ": " + detail;
            listReady(member.index); // its poll says why, at once
        }
    }

    @Override
    public void onMessage(final long id, final MemorySegment buffer, final long offset, final int length) {
        final Member member = member(id);
        if (member != null) {
            member.onMessage(buffer, offset, length);
            listReady(member.index);
        }
    }

    private void listReady(final int k) {
        if (!readyListed[k]) {
            readyListed[k] = true;
            readyList[readyCount++] = k;
        }
    }

    /**
     * Runs one duty cycle and hands over the members an echo reached since the last call. A member polled after
     * this finds its echoes without running another cycle: the cycle count moved past what it last saw.
     */
    @Override
    public int pollReady(final int[] ready) {
        reactor.doWork();
        cycles++;
        final int n = readyCount;
        for (int i = 0; i < n; i++) {
            final int k = readyList[i];
            ready[i] = k;
            readyListed[k] = false;
        }
        readyCount = 0;
        return n;
    }

    @Override
    public int indexOf(final PingClient client) {
        for (int k = 0; k < members.length; k++) {
            if (members[k] == client) {
                return k;
            }
        }
        return -1;
    }

    @Override
    public int size() {
        return members.length;
    }

    /** One client: its connection and the ring of its echoes. */
    final class Member implements PingClient {
        final int index;
        final long channelId;
        private final EchoRing echoes;
        String closed;
        private boolean released;
        private long seenCycle;
        private long lastSent;

        Member(final int index, final long channelId, final int capacity) {
            this.index = index;
            this.channelId = channelId;
            this.echoes = new EchoRing(capacity, replySize, sequenceLength);
        }

        void onMessage(final MemorySegment buffer, final long offset, final int length) {
            echoes.onReply(buffer, offset, length);
        }

        private void checkOpen() {
            if (closed != null) {
                throw new IllegalStateException(closed);
            }
        }

        @Override
        public void send(final long sequence) {
            while (true) {
                final long offset = transport.tryClaim(channelId, size);
                if (offset >= 0) {
                    BenchMessageLayout.putSequence(transport.claimBuffer(), offset, sequenceLength, sequence);
                    lastSent = sequence;
                    final long result = transport.commit();
                    if (result < 0) {
                        reactor.doWork();
                        checkOpen();
                        throw new IllegalStateException("send failed: " + SendResult.describe(result));
                    }
                    return;
                }
                reactor.doWork(); // delivers the close event, with its reason, if the connection is gone
                if (offset != SendResult.BACK_PRESSURED) {
                    checkOpen();
                    throw new IllegalStateException("send failed: " + SendResult.describe(offset));
                }
            }
        }

        @Override
        public long poll() {
            if (echoes.isEmpty()) {
                // the loop polls in turn every member that sent or awaits an echo: one cycle per pass reads every
                // connection once, where a cycle per member would read them all as many times as members polled (a
                // member first polled after others ran cycles waits one pass for its own)
                if (seenCycle == cycles) {
                    reactor.doWork();
                    cycles++;
                }
                seenCycle = cycles;
                echoes.throwIfFailed();
                if (echoes.isEmpty()) {
                    checkOpen();
                    return -1;
                }
            }
            return BenchMessageLayout.widen(echoes.take(), lastSent, sequenceLength);
        }

        @Override
        public EchoReadiness readiness() {
            return PeregrineTcpClientGroup.this;
        }

        /** The group's duty cycles so far, for tests. */
        long groupCycles() {
            return cycles;
        }

        @Override
        public void close() {
            if (released) {
                return;
            }
            released = true;
            if (closed == null) {
                closed = "closed";
                transport.close(channelId);
            }
            if (--open == 0) {
                transport.close();
                reactor.close();
            }
        }
    }
}
