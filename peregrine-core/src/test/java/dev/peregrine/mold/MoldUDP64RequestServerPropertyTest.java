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
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeProperty;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The re-request server against the spec's rule, checked by an oracle of its own: each request is answered
 * with one packet holding as many of the requested messages as fit, in order, from the requested sequence
 * number (or the oldest one kept, when the start is gone), and only messages the store holds; a request for
 * none of those, malformed or of another session gets no answer. The answer is read off a real socket and
 * parsed with {@link ReferenceMoldUDP64}; the expected messages come from the test's own copy of what it
 * appended, and whether they fit is counted here (2 bytes of length per block plus the bytes).
 */
class MoldUDP64RequestServerPropertyTest {
    private static final String SESSION = "REQPROP";
    private static final int APPENDED = 300;
    private static final int KEPT = 128;
    private static final int[] MAX_PAYLOADS = {2, 40, 120, MoldUDP64Layout.DEFAULT_MAX_PAYLOAD};

    private final List<Throwable> errors = new ArrayList<>();
    private final List<byte[]> appended = new ArrayList<>(); // message n at index n - 1
    private final MoldUDP64RequestServer[] servers = new MoldUDP64RequestServer[MAX_PAYLOADS.length];
    private Reactor reactor;
    private MoldUDP64MessageStore store;
    private DatagramChannel client;
    private InetSocketAddress clientAddress;

    @BeforeProperty
    void open() throws IOException {
        reactor = new Reactor(new ReactorOptions().clock(NanoClock.SYSTEM).errorHandler(errors::add));
        store = MoldUDP64MessageStore.inMemory(SESSION, KEPT, 1 << 16);
        final Random random = new Random(42);
        for (int i = 0; i < APPENDED; i++) {
            // mostly short, some empty, a few long enough that one alone does not fit a small answer
            final byte[] message = new byte[random.nextInt(10) == 0 ? 0 : random.nextInt(8) == 0 ? 60 + random.nextInt(100)
                : 1 + random.nextInt(30)];
            random.nextBytes(message);
            appended.add(message);
            store.append(MemorySegment.ofArray(message), 0, message.length);
        }
        assertThat(store.firstSequence()).as("the store keeps the last %d messages", KEPT).isEqualTo(APPENDED - KEPT + 1);
        for (int i = 0; i < servers.length; i++) {
            servers[i] = new MoldUDP64RequestServer(reactor, store, new UdpOptions().localAddress(MoldFixture.loopback(0)),
                MAX_PAYLOADS[i], 1_000_000_000, 1_000_000);
        }
        client = MoldFixture.capture();
        clientAddress = MoldFixture.address(client);
    }

    @AfterProperty
    void close() throws IOException {
        reactor.close();
        store.close();
        client.close();
        assertThat(errors).isEmpty();
    }

    /** A request: which server, and the datagram's session, sequence number, count and length. */
    record Request(int server, boolean ownSession, long sequence, int count, int length) {
    }

    @Provide
    Arbitrary<Request> requests() {
        final long first = APPENDED - KEPT + 1;
        final long next = APPENDED + 1;
        final Arbitrary<Long> sequences = Arbitraries.frequencyOf(
            Tuple.of(1, Arbitraries.of(0L, 1L, first - 1, first, first + 1, next - 2, next - 1, next, next + 1)),
            Tuple.of(4, Arbitraries.longs().between(first, next - 1)),
            Tuple.of(2, Arbitraries.longs().between(1, first)),
            Tuple.of(1, Arbitraries.of(Long.MAX_VALUE, Long.MIN_VALUE, -1L)));
        final Arbitrary<Integer> counts = Arbitraries.frequencyOf(
            Tuple.of(1, Arbitraries.of(0, 1, 2, 0xFFFE, 0xFFFF)),
            Tuple.of(4, Arbitraries.integers().between(1, 200)),
            Tuple.of(1, Arbitraries.integers().between(0, 0xFFFF)));
        final Arbitrary<Integer> lengths = Arbitraries.frequencyOf(Tuple.of(10, Arbitraries.just(20)),
            Tuple.of(1, Arbitraries.of(0, 19, 21, 40)));
        return Combinators.combine(Arbitraries.integers().between(0, MAX_PAYLOADS.length - 1),
            Arbitraries.frequencyOf(Tuple.of(9, Arbitraries.just(true)), Tuple.of(1, Arbitraries.just(false))),
            sequences, counts, lengths).as(Request::new);
    }

    @Property(tries = 2000)
    void shouldAnswerWithExactlyTheRequestedMessagesThatTheStoreHoldsAndThatFitOnePacket(
        @ForAll("requests") final Request request) throws IOException {
        final MoldUDP64RequestServer server = servers[request.server()];
        final byte[] datagram = requestDatagram(request);

        final int answered = server.onRequest(MemorySegment.ofArray(datagram), 0, datagram.length, clientAddress,
            reactor.nowNs());

        final List<byte[]> expected = expectedAnswer(request, MAX_PAYLOADS[request.server()]);
        final ByteBuffer received = ByteBuffer.allocate(65_536);
        // loopback hands a datagram to the receiving socket inside the sender's send: it is there already, or never
        if (expected == null) {
            assertThat(client.receive(received)).as("no answer").isNull();
            assertThat(answered).isZero();
            return;
        }
        assertThat(client.receive(received)).as("an answer").isNotNull();
        final ReferenceMoldUDP64.Packet answer = ReferenceMoldUDP64.parse(Arrays.copyOf(received.array(), received.position()));
        assertThat(answer).as("a well-formed packet").isNotNull();
        assertThat(answer.sessionIs(SESSION)).isTrue();
        final long from = Math.max(request.sequence(), APPENDED - KEPT + 1);
        assertThat(answer.sequence()).isEqualTo(from);
        assertThat(answer.count()).isEqualTo(expected.size());
        assertThat(answer.messages().stream().map(HexFormat.of()::formatHex).toList())
            .isEqualTo(expected.stream().map(HexFormat.of()::formatHex).toList());
        assertThat(answered).isEqualTo(expected.size());
        assertThat(client.receive(received.clear())).as("one packet per request").isNull();
    }

    /**
     * The spec's rule, counted by hand: the requested range cut to what the store holds, then the longest run
     * from its start whose blocks fit the payload, at most 0xFFFE messages; null for no answer.
     */
    private List<byte[]> expectedAnswer(final Request request, final int maxPayload) {
        if (request.length() != 20 || !request.ownSession() || request.sequence() < 1 || request.count() == 0) {
            return null;
        }
        final long first = APPENDED - KEPT + 1;
        final long next = APPENDED + 1;
        if (request.sequence() >= next) {
            return null;
        }
        final long from = Math.max(request.sequence(), first);
        final long to = Math.min(request.sequence() + request.count(), next);
        final List<byte[]> messages = new ArrayList<>();
        int bytes = 0;
        for (long sequence = from; sequence < to && messages.size() < 0xFFFE; sequence++) {
            final byte[] message = appended.get((int)(sequence - 1));
            if (bytes + 2 + message.length > maxPayload) {
                break;
            }
            bytes += 2 + message.length;
            messages.add(message);
        }
        return messages.isEmpty() ? null : messages;
    }

    /** The request datagram, by hand: 10 session bytes padded with spaces, 8 bytes of sequence, 2 of count. */
    private static byte[] requestDatagram(final Request request) {
        final byte[] datagram = new byte[Math.max(request.length(), 20)];
        final byte[] session = (request.ownSession() ? SESSION : "ELSEWHERE").getBytes(StandardCharsets.US_ASCII);
        Arrays.fill(datagram, 0, 10, (byte)' ');
        System.arraycopy(session, 0, datagram, 0, session.length);
        for (int i = 0; i < 8; i++) {
            datagram[10 + i] = (byte)(request.sequence() >>> (56 - 8 * i));
        }
        datagram[18] = (byte)(request.count() >>> 8);
        datagram[19] = (byte)request.count();
        return Arrays.copyOf(datagram, request.length());
    }
}
