package dev.peregrine.mold;

import dev.peregrine.reactor.NanoClock;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.udp.UdpOptions;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeProperty;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random and mutated packets fed to the subscriber's and the re-request server's decoders: nothing is
 * thrown, every packet is either accepted whole or counted as bad and dropped, and delivery stays in order.
 */
class MoldUDP64DecoderPropertyTest {
    private static final String SESSION = "PROP";
    private final List<Throwable> errors = new ArrayList<>();
    private Reactor reactor;
    private MoldUDP64MessageStore store;
    private MoldUDP64RequestServer server;
    private MoldUDP64Subscriber subscriber;
    private long next;
    private long outOfOrder;

    @BeforeProperty
    void open() {
        reactor = new Reactor(new ReactorOptions().clock(NanoClock.SYSTEM).errorHandler(errors::add));
        store = MoldUDP64MessageStore.inMemory(SESSION, 1024, 1 << 20);
        for (int i = 0; i < 100; i++) {
            store.append(MemorySegment.ofArray(new byte[i % 50]), 0, i % 50);
        }
        server = new MoldUDP64RequestServer(reactor, store, new UdpOptions().localAddress(MoldFixture.loopback(0)),
            MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, 1_000_000_000, 1_000_000);
        subscriber = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
            .feed(new UdpOptions().localAddress(MoldFixture.loopback(0))).session(SESSION),
            (sequence, buffer, offset, length) -> {
                if (next != 0 && sequence != next) {
                    outOfOrder++;
                }
                next = sequence + 1;
            });
    }

    @AfterProperty
    void close() {
        reactor.close();
        store.close();
        assertThat(errors).isEmpty();
        assertThat(outOfOrder).isZero();
    }

    @Provide
    Arbitrary<byte[]> packets() {
        final Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMaxSize(200);
        final Arbitrary<byte[]> mutated = Arbitraries.integers().between(0, 6).flatMap(count ->
            Arbitraries.integers().between(0, 30).list().ofSize(count).flatMap(lengths -> {
                final byte[][] messages = new byte[lengths.size()][];
                for (int i = 0; i < messages.length; i++) {
                    messages[i] = new byte[lengths.get(i)];
                }
                final byte[] valid = MoldFixture.packet(SESSION, 1 + lengths.size(), lengths.size(), messages);
                return Arbitraries.integers().between(0, valid.length - 1).list().ofMaxSize(4)
                    .flatMap(positions -> Arbitraries.bytes().list().ofSize(positions.size()).map(values -> {
                        final byte[] copy = valid.clone();
                        for (int i = 0; i < positions.size(); i++) {
                            copy[positions.get(i)] = values.get(i);
                        }
                        return copy;
                    }))
                    .flatMap(copy -> Arbitraries.integers().between(0, copy.length + 3)
                        .map(length -> java.util.Arrays.copyOf(copy, length)));
            }));
        return Arbitraries.oneOf(random, mutated);
    }

    @Property(tries = 3000)
    void subscriberCountsOrAcceptsEveryPacketAndNeverThrows(@ForAll("packets") final byte[] packet) {
        final long before = subscriber.malformed() + subscriber.otherSession();
        final boolean wellFormed = MoldUDP64Layout.validate(MemorySegment.ofArray(packet), 0, packet.length) >= 0
            && packet.length >= 20 && MoldUDP64Layout.sequence(MemorySegment.ofArray(packet), 0) >= 1
            && MoldUDP64Layout.sequence(MemorySegment.ofArray(packet), 0) < Long.MAX_VALUE - 0xFFFF
            && MoldUDP64Layout.sessionEquals(MemorySegment.ofArray(packet), 0, MoldUDP64Layout.session(SESSION));

        subscriber.onPacket(MemorySegment.ofArray(packet), 0, packet.length, false, reactor.nowNs());

        final long counted = subscriber.malformed() + subscriber.otherSession() - before;
        assertThat(counted).isEqualTo(wellFormed ? 0 : 1);
    }

    @Property(tries = 3000)
    void requestServerCountsOrAnswersEveryRequestAndNeverThrows(@ForAll("packets") final byte[] request) {
        final long before = server.malformed() + server.otherSession() + server.unavailable() + server.rateLimited() + server.answers();
        final int answered = server.onRequest(MemorySegment.ofArray(request), 0, request.length,
            new InetSocketAddress(MoldFixture.LOOPBACK, 9), reactor.nowNs());

        assertThat(server.malformed() + server.otherSession() + server.unavailable() + server.rateLimited() + server.answers())
            .isEqualTo(before + 1);
        assertThat(answered).isBetween(0, MoldUDP64Layout.MAX_MESSAGE_COUNT);
    }
}
