package dev.peregrine.mold;

import dev.peregrine.reactor.NanoClock;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.udp.UdpOptions;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeProperty;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random and mutated packets fed to the subscriber's and the re-request server's decoders: nothing is
 * thrown, every packet is either accepted whole or counted as bad and dropped, and delivery stays in order.
 * Whether a packet is well formed, and what it carries, is decided by {@link ReferenceMoldUDP64}, a parser
 * written from the spec that shares no code with {@link MoldUDP64Layout}. The packets include heartbeats,
 * end-of-session packets (with and without stray blocks), sequence numbers at both ends of the range the
 * subscriber accepts (1 to 2^63 - 1 - 0xFFFF, so that the last message of any packet still has a positive
 * number) and just beyond them, and unsigned sequence numbers of 2^63 and above.
 */
class MoldUDP64DecoderPropertyTest {
    private static final String SESSION = "PROP";
    private final List<Throwable> errors = new ArrayList<>();
    private Reactor reactor;
    private MoldUDP64MessageStore store;
    private MoldUDP64RequestServer server;
    private long next;
    private long outOfOrder;
    private final List<Long> deliveredSequences = new ArrayList<>();
    private final List<byte[]> deliveredMessages = new ArrayList<>();

    @BeforeProperty
    void open() {
        reactor = new Reactor(new ReactorOptions().clock(NanoClock.SYSTEM).errorHandler(errors::add));
        store = MoldUDP64MessageStore.inMemory(SESSION, 1024, 1 << 20);
        for (int i = 0; i < 100; i++) {
            store.append(MemorySegment.ofArray(new byte[i % 50]), 0, i % 50);
        }
        server = new MoldUDP64RequestServer(reactor, store, new UdpOptions().localAddress(MoldFixture.loopback(0)),
            MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, 1_000_000_000, 1_000_000);
    }

    /**
     * A subscriber of its own for each try, expecting {@code startSequence} first: one shared by every try soon
     * expected a number near 2^63 and then delivered nothing, so the oracle had nothing to compare.
     */
    private MoldUDP64Subscriber subscriber(final long startSequence) {
        next = 0;
        return new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
            .feed(new UdpOptions().localAddress(MoldFixture.loopback(0))).session(SESSION).startSequence(startSequence),
            (sequence, buffer, offset, length) -> {
                if (next != 0 && sequence != next) {
                    outOfOrder++;
                }
                next = sequence + 1;
                deliveredSequences.add(sequence);
                deliveredMessages.add(buffer.asSlice(offset, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
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
        // mostly well-formed packets: random and mutated bytes are nearly all refused, and a refused packet gives
        // the delivery oracle nothing to check (the coverage check below holds the mix to that)
        return Arbitraries.frequencyOf(Tuple.of(1, random), Tuple.of(1, mutated), Tuple.of(8, structured()));
    }

    /** Packets built field by field: either session, sequence numbers from everywhere, every kind of packet. */
    private static Arbitrary<byte[]> structured() {
        final long last = Long.MAX_VALUE - 0xFFFF; // the highest first sequence number the subscriber accepts
        final Arbitrary<Long> sequences = Arbitraries.frequencyOf(
            Tuple.of(3, Arbitraries.longs().between(0, 200)),
            Tuple.of(3, Arbitraries.longs().between(last - 3, last + 3)),
            Tuple.of(1, Arbitraries.of(Long.MAX_VALUE, Long.MIN_VALUE, -1L, Long.MAX_VALUE - 1)),
            Tuple.of(1, Arbitraries.longs()));
        final Arbitrary<String> sessions = Arbitraries.of(SESSION, SESSION, SESSION, SESSION, "OTHER");
        final Arbitrary<List<Integer>> blockLengths = Arbitraries.integers().between(0, 30).list().ofMaxSize(6);
        final Arbitrary<Integer> kinds = Arbitraries.of(0, 1, 2, 2, 2); // heartbeat, end of session, data
        return Combinators.combine(sessions, sequences, kinds, blockLengths, Arbitraries.of(-2, -1, 0, 0, 0, 0, 0, 0, 1, 2))
            .as((session, sequence, kind, lengths, extra) -> {
                final byte[][] messages = new byte[kind == 2 ? lengths.size() : extra > 0 ? 1 : 0][];
                for (int i = 0; i < messages.length; i++) {
                    messages[i] = new byte[kind == 2 ? lengths.get(i) : 3];
                    Arrays.fill(messages[i], (byte)(i + 1));
                }
                final int count = kind == 0 ? 0 : kind == 1 ? 0xFFFF : messages.length;
                final byte[] packet = MoldFixture.packet(session, sequence, count, messages);
                // a byte or two cut off or added at the end, now and then
                return extra < 0 && kind == 2 ? Arrays.copyOf(packet, Math.max(0, packet.length + extra))
                    : extra == 2 ? Arrays.copyOf(packet, packet.length + 1) : packet;
            });
    }

    /**
     * Each try starts a fresh subscriber at the first message of the first packet seen (start 0) or a few
     * numbers either side of the packet's own, so packets that hold the next expected message, packets past it
     * (a gap) and packets before it come up everywhere in the range, up to 2^63 - 1 - 0xFFFF; jqwik's coverage
     * check fails the property when any of them, or the top of the range, is missed.
     */
    @Property(tries = 3000)
    void subscriberCountsOrAcceptsEveryPacketAndNeverThrows(@ForAll("packets") final byte[] packet,
        @ForAll @IntRange(min = -3, max = 3) final int startOffset, @ForAll final boolean fromFirstSeen) {
        final long last = Long.MAX_VALUE - 0xFFFF;
        final ReferenceMoldUDP64.Packet parsed = ReferenceMoldUDP64.parse(packet);
        final boolean accepted = parsed != null && parsed.sessionIs(SESSION)
            && parsed.sequence() >= 1 && parsed.sequence() <= last;
        final long start = fromFirstSeen ? 0 : accepted ? Math.max(1, parsed.sequence() + startOffset) : 1 + Math.abs(startOffset);
        final MoldUDP64Subscriber subscriber = subscriber(start);
        try {
            check(subscriber, packet, parsed, accepted);
        } finally {
            subscriber.close();
        }
        final boolean data = accepted && parsed.count() != ReferenceMoldUDP64.END_OF_SESSION && !parsed.messages().isEmpty();
        Statistics.label("outcome").collect(!accepted ? "refused" : !data ? "accepted, no messages"
            : !deliveredSequences.isEmpty() ? "delivered" : start != 0 && parsed.sequence() > start ? "gap" : "all seen before");
        Statistics.label("first sequence").collect(!accepted ? "refused" : parsed.sequence() > last - 8 ? "within 8 of the top"
            : parsed.sequence() <= 200 ? "low" : "elsewhere");
        Statistics.label("outcome").coverage(coverage -> {
            coverage.check("delivered").percentage(percent -> percent >= 3);
            coverage.check("gap").percentage(percent -> percent >= 0.7);
            coverage.check("all seen before").count(count -> count >= 3);
            coverage.check("refused").percentage(percent -> percent >= 10);
        });
        Statistics.label("first sequence").coverage(coverage -> coverage.check("within 8 of the top").percentage(percent -> percent >= 2));
    }

    private void check(final MoldUDP64Subscriber subscriber, final byte[] packet, final ReferenceMoldUDP64.Packet parsed,
        final boolean accepted) {
        final long before = subscriber.malformed() + subscriber.otherSession();
        final long expectedBefore = subscriber.nextExpected();
        deliveredSequences.clear();
        deliveredMessages.clear();

        final int deliveredNow = subscriber.onPacket(MemorySegment.ofArray(packet), 0, packet.length, false, reactor.nowNs());

        final long counted = subscriber.malformed() + subscriber.otherSession() - before;
        assertThat(counted).as("counted as malformed or of another session").isEqualTo(accepted ? 0 : 1);
        assertThat(deliveredNow).isEqualTo(deliveredSequences.size());
        // what is delivered: the packet's messages from the next expected one on, if it holds that one
        final List<Long> expectedSequences = new ArrayList<>();
        final List<byte[]> expectedMessages = new ArrayList<>();
        if (accepted && parsed.count() != ReferenceMoldUDP64.END_OF_SESSION) {
            final long from = expectedBefore == 0 ? parsed.sequence() : expectedBefore;
            for (int i = 0; i < parsed.messages().size(); i++) {
                if (parsed.sequence() + i >= from && parsed.sequence() <= from) {
                    expectedSequences.add(parsed.sequence() + i);
                    expectedMessages.add(parsed.messages().get(i));
                }
            }
        }
        // then, once that fills a gap, the packets kept past it in the reorder buffer: contiguous, in order
        if (expectedSequences.isEmpty()) {
            assertThat(deliveredSequences).as("nothing delivered by a packet without the next expected message").isEmpty();
        } else {
            assertThat(deliveredSequences).startsWith(expectedSequences.toArray(Long[]::new));
            for (int i = 1; i < deliveredSequences.size(); i++) {
                assertThat(deliveredSequences.get(i)).as("in order, none twice").isEqualTo(deliveredSequences.get(i - 1) + 1);
            }
            assertThat(subscriber.nextExpected()).isEqualTo(deliveredSequences.getLast() + 1);
        }
        assertThat(deliveredMessages.stream().limit(expectedMessages.size()).map(HexFormat.of()::formatHex).toList())
            .isEqualTo(expectedMessages.stream().map(HexFormat.of()::formatHex).toList());
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
