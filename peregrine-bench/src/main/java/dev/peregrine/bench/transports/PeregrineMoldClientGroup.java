package dev.peregrine.bench.transports;

import dev.peregrine.mold.MoldUDP64GapReason;
import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.mold.MoldUDP64PacketFilter;
import dev.peregrine.mold.MoldUDP64Publisher;
import dev.peregrine.mold.MoldUDP64PublisherOptions;
import dev.peregrine.mold.MoldUDP64RequestServer;
import dev.peregrine.mold.MoldUDP64Subscriber;
import dev.peregrine.mold.MoldUDP64SubscriberOptions;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.StreamLoss;
import dev.peregrine.peers.support.MoldRendezvous;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.udp.UdpEndpoint;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The clients of {@code bench load}'s shared topology over MoldUDP64 ({@link PeregrineMoldSharedResponder}): every
 * client's publisher, request server and subscriber of echoes on one reactor that is never started. The caller's
 * thread drives it inside any member's {@link PingClient#poll()} when that member has no echo waiting, one cycle per
 * pass over the members (as {@link PeregrineTcpClientGroup} does), and each member's echoes wait in a ring of its
 * own. A member's messages are packed until its next poll, as the per-client {@code peregrine-mold} client's are: a
 * lone message leaves at once, a burst of a client behind its schedule in one packet. Each member's publisher drops
 * what its {@link StreamLoss.Dropper} says ({@code bench load --loss}), which the responder recovers from that
 * member's request server. Sockets are found through {@link MoldRendezvous} before any message is sent.
 */
final class PeregrineMoldClientGroup {
    private final Reactor reactor;
    private final BenchConfig config;
    private final List<MoldUDP64MessageStore> stores = new ArrayList<>();
    /** Every socket of every member, for {@link #senderAddressChanges()}. */
    private final List<UdpEndpoint> endpoints = new ArrayList<>();
    /** Duty cycles run so far: a member whose echoes are all taken runs one only if none ran since it last looked. */
    private long cycles;
    private int open;

    private PeregrineMoldClientGroup(final BenchConfig config) {
        this.config = config;
        this.reactor = PeregrineUdpBench.reactor(config, "peregrine-mold-clients"); // never started: the caller polls
    }

    /**
     * Introduces {@code droppers.size()} clients to the responder and connects their sessions, on one reactor.
     *
     * @param config the run's configuration; the responder's rendezvous is {@code port}
     * @param droppers each client's loss decisions
     * @return the clients, to be used by one thread
     * @throws IOException if the responder does not answer a client's introduction within 10 s
     */
    static List<PingClient> connect(final BenchConfig config, final List<StreamLoss.Dropper> droppers)
        throws IOException {
        final PeregrineMoldClientGroup group = new PeregrineMoldClientGroup(config);
        final List<PingClient> members = new ArrayList<>(droppers.size());
        try (MoldRendezvous rendezvous = new MoldRendezvous(PeregrineUdpBench.address(config, 0))) {
            for (int k = 0; k < droppers.size(); k++) {
                members.add(group.new Member(rendezvous, k, droppers.get(k)));
                group.open++;
            }
        } catch (final IOException | RuntimeException ex) {
            group.release();
            throw ex;
        }
        return members;
    }

    private InetSocketAddress ephemeral() {
        return new InetSocketAddress(PeregrineUdpBench.address(config, 0).getAddress(), 0);
    }

    private InetSocketAddress responderPort(final int port) {
        return new InetSocketAddress(PeregrineUdpBench.address(config, 0).getAddress(), port);
    }

    /**
     * {@link UdpEndpoint#senderAddressChanges()} of every member's sockets: how often the JDK decoded a sender's
     * address on the thread that drives the clients. Read it on that thread, or once it has ended.
     *
     * @return the count
     */
    long senderAddressChanges() {
        long changes = 0;
        for (final UdpEndpoint endpoint : endpoints) {
            changes += endpoint.senderAddressChanges();
        }
        return changes;
    }

    private void release() {
        reactor.close(); // the caller's thread drove it: released at once, sockets with it
        for (final MoldUDP64MessageStore store : stores) {
            store.close();
        }
    }

    /** One client: its session to the responder, its request server, its subscriber of echoes and their ring. */
    final class Member implements PingClient {
        private final MemorySegment message;
        private final int size;
        private final int replySize;
        private final EchoSequences received = new EchoSequences();
        private final MoldUDP64Publisher publisher;
        private IllegalStateException replyFailure;
        private long seenCycle;
        private boolean closed;

        Member(final MoldRendezvous rendezvous, final int client, final StreamLoss.Dropper dropper) throws IOException {
            this.size = config.size();
            this.replySize = config.replySize();
            this.message = Arena.ofAuto().allocate(size, 8);
            final MoldUDP64MessageStore store = PeregrineMoldBench.store(PeregrineMoldBench.REQUEST_SESSION);
            stores.add(store);
            final MoldUDP64RequestServer server = new MoldUDP64RequestServer(reactor, store,
                PeregrineUdpBench.options(config).busyPoll(false).localAddress(ephemeral()),
                PeregrineMoldBench.maxPayload(config), 100_000, 1000);
            final int[] welcome = rendezvous.ask(MoldRendezvous.HELLO, client, server.localAddress().getPort(),
                MoldRendezvous.WELCOME);
            if (!MoldRendezvous.validPort(welcome[0]) || !MoldRendezvous.validPort(welcome[1])) {
                throw new IOException("MoldUDP64 responder welcomed client " + client + " with feed port=" + welcome[0]
                    + " request server port=" + welcome[1]);
            }
            final MoldUDP64Subscriber subscriber = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
                .feed(PeregrineUdpBench.options(config).busyPoll(false).localAddress(ephemeral()))
                .session(PeregrineMoldBench.ECHO_SESSION).startSequence(1)
                .requestServer(responderPort(welcome[1])).requestTimeoutNs(10_000_000L), listener);
            final MoldUDP64PacketFilter filter = (sequence, count) -> !dropper.drop();
            this.publisher = new MoldUDP64Publisher(reactor, store, new MoldUDP64PublisherOptions()
                .destination(responderPort(welcome[0])).maxPayload(PeregrineMoldBench.maxPayload(config))
                .udp(PeregrineUdpBench.options(config).busyPoll(false).localAddress(ephemeral())).filter(filter));
            endpoints.add(server.endpoint());
            endpoints.add(subscriber.feedEndpoint());
            endpoints.add(subscriber.requestEndpoint());
            endpoints.add(publisher.endpoint());
            rendezvous.ask(MoldRendezvous.READY, client, subscriber.feedEndpoint().localAddress().getPort(),
                MoldRendezvous.ACK);
        }

        /**
         * The group this client belongs to.
         *
         * @return it
         */
        PeregrineMoldClientGroup group() {
            return PeregrineMoldClientGroup.this;
        }

        private final PeregrineMoldBench.Unrecoverable listener = new PeregrineMoldBench.Unrecoverable("client") {
            @Override
            public void onMessage(final long sequence, final MemorySegment buffer, final long offset, final int length) {
                if (length != replySize && replyFailure == null) {
                    replyFailure = new IllegalStateException("reply of length=" + length + " to sequence="
                        + (length >= 8 ? buffer.get(PeregrineUdpBench.SEQUENCE, offset) : -1) + ", expected replySize="
                        + replySize);
                } else if (length >= 8) {
                    received.add(buffer.get(PeregrineUdpBench.SEQUENCE, offset));
                }
            }

            @Override
            public void onUnrecoverable(final long fromSequence, final long count, final MoldUDP64GapReason reason) {
                super.onUnrecoverable(fromSequence, count, reason);
                if (replyFailure == null) {
                    replyFailure = new IllegalStateException(describe(fromSequence, count, reason));
                }
            }
        };

        /** Adds the message to the packet being filled; {@link #poll()} sends it, with any sent before it. */
        @Override
        public void send(final long sequence) {
            message.set(PeregrineUdpBench.SEQUENCE, 0, sequence);
            publisher.offer(message, 0, size); // a full packet goes out by itself
        }

        @Override
        public long poll() {
            publisher.flush(); // what was sent since the last poll leaves in one packet
            if (received.isEmpty()) {
                // the loop polls in turn every member that sent or awaits an echo: one cycle per pass reads every
                // socket once
                if (seenCycle == cycles) {
                    reactor.doWork();
                    cycles++;
                }
                seenCycle = cycles;
                if (replyFailure != null) {
                    throw replyFailure;
                }
            }
            return received.poll();
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            if (--open == 0) {
                release();
            }
        }
    }
}
