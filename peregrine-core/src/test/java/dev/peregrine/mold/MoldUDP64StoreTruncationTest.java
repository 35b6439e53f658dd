package dev.peregrine.mold;

import dev.peregrine.reactor.Reactor;
import dev.peregrine.udp.UdpOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.peregrine.mold.MoldFixture.numbered;
import static dev.peregrine.mold.MoldFixture.packet;
import static org.assertj.core.api.Assertions.assertThat;

/** A subscriber behind a re-request server whose store has moved on: it gives up, with the reason. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MoldUDP64StoreTruncationTest {
    private static final String SESSION = "TRUNC";
    private final MoldFixture.ManualClock clock = new MoldFixture.ManualClock();
    private final Reactor reactor = MoldFixture.reactor(clock);
    private final MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory(SESSION, 64, 1 << 20);
    private final MoldUDP64RequestServer server = new MoldUDP64RequestServer(reactor, store,
        new UdpOptions().localAddress(MoldFixture.loopback(0)), MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, 1000, 100);
    private final List<String> events = new ArrayList<>();
    private final MoldUDP64Subscriber subscriber = new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
        .feed(new UdpOptions().localAddress(MoldFixture.loopback(0))).requestServer(server.localAddress()).startSequence(1)
        .requestTimeoutNs(10_000_000L).maxRequestTimeoutNs(10_000_000L).requestAttempts(3), MoldFixture.recording(events));

    @AfterEach
    void close() {
        reactor.close();
        store.close();
    }

    private void publish(final int messages) {
        final byte[][] bodies = numbered(store.nextSequence(), messages);
        for (final byte[] body : bodies) {
            store.append(MemorySegment.ofArray(body), 0, body.length);
        }
    }

    private void feed(final long sequence) {
        final byte[] bytes = packet(SESSION, sequence, 1, numbered(sequence, 1));
        subscriber.onPacket(MemorySegment.ofArray(bytes), 0, bytes.length, false, clock.now);
    }

    @Test
    void shouldGiveUpAsStoreTruncatedWhenTheAnswerStartsPastTheGap() {
        publish(200); // the store keeps 137 to 200
        feed(200);

        MoldFixture.spinUntil(reactor, () -> subscriber.state() == MoldUDP64SubscriberState.UNRECOVERABLE, 5);
        assertThat(events).containsExactly("unrecoverable 1+136 STORE_TRUNCATED");
        assertThat(subscriber.unrecoverableReason()).isEqualTo(MoldUDP64GapReason.STORE_TRUNCATED);
        assertThat(subscriber.delivered()).isZero();
        assertThat(server.forgotten()).as("the first answer is checked by a second request").isEqualTo(2);
    }

    @Test
    void shouldGiveUpAsUnansweredWhenTheStoreHoldsNoneOfTheGap() {
        publish(200);
        feed(50); // 1 to 49 are all gone

        MoldFixture.spinUntil(reactor, () -> server.requests() == 1, 5);
        for (int i = 0; i < 3 && subscriber.state() != MoldUDP64SubscriberState.UNRECOVERABLE; i++) {
            final long requests = server.requests();
            clock.now += 10_000_000L;
            MoldFixture.spinUntil(reactor, () -> server.requests() > requests
                || subscriber.state() == MoldUDP64SubscriberState.UNRECOVERABLE, 5);
        }

        assertThat(events).containsExactly("unrecoverable 1+49 NO_ANSWER");
        assertThat(subscriber.state()).isEqualTo(MoldUDP64SubscriberState.UNRECOVERABLE);
        assertThat(server.requests()).isEqualTo(3);
        assertThat(server.forgotten()).isEqualTo(3);
        assertThat(server.answers()).isZero();
    }
}
