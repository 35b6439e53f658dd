package dev.peregrine.mold;

import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.testkit.ArmedFault;
import dev.peregrine.testkit.FileDescriptors;
import dev.peregrine.udp.UdpOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static dev.peregrine.mold.MoldFixture.address;
import static dev.peregrine.mold.MoldFixture.capture;
import static dev.peregrine.mold.MoldFixture.loopback;
import static dev.peregrine.mold.MoldFixture.numbered;
import static dev.peregrine.mold.MoldFixture.packet;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A MoldUDP64 listener (or a publisher's packet filter) that throws: that subscriber (publisher) alone ends, with
 * the reason, counted once and reported once, its sockets released, nothing delivered after it; the reactor goes
 * on and another subscriber on it keeps receiving. Nothing leaks over a thousand rounds.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MoldUDP64FaultTest {
    private static final String SESSION = "FAULT";
    private static final long TIMEOUT_NS = 1_000_000L;

    private final MoldFixture.ManualClock clock = new MoldFixture.ManualClock();
    private final List<Throwable> errors = new ArrayList<>();
    private final Reactor reactor = new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy()).clock(clock)
        .errorHandler(errors::add));
    private final DatagramChannel sender = capture();
    private final DatagramChannel requestServer = capture();

    @AfterEach
    void close() throws IOException {
        reactor.close();
        sender.close();
        requestServer.close();
    }

    enum Callback {
        ON_MESSAGE, ON_STATE_CHANGE, ON_GAP_FILLED, ON_UNRECOVERABLE
    }

    /** Records every call as a string (before throwing, so the failing call is in the list), throws once when armed. */
    private static final class Recording implements MoldUDP64Listener {
        final List<String> events = new ArrayList<>();
        final ArmedFault<Callback> fault = new ArmedFault<>();

        private void maybeThrow(final Callback callback) {
            fault.maybeThrow(callback);
        }

        @Override
        public void onMessage(final long sequence, final MemorySegment buffer, final long offset, final int length) {
            events.add("message " + sequence);
            maybeThrow(Callback.ON_MESSAGE);
        }

        @Override
        public void onStateChange(final MoldUDP64SubscriberState state, final long nextExpected) {
            events.add(state + " at " + nextExpected);
            maybeThrow(Callback.ON_STATE_CHANGE);
        }

        @Override
        public void onGapFilled(final long fromSequence, final long count, final long nanos) {
            events.add("gap filled " + fromSequence + "+" + count);
            maybeThrow(Callback.ON_GAP_FILLED);
        }

        @Override
        public void onUnrecoverable(final long fromSequence, final long count, final MoldUDP64GapReason reason) {
            events.add("unrecoverable " + fromSequence + "+" + count + " " + reason);
            maybeThrow(Callback.ON_UNRECOVERABLE);
        }

        long messages() {
            return events.stream().filter(event -> event.startsWith("message ")).count();
        }
    }

    private MoldUDP64Subscriber subscriber(final MoldUDP64Listener listener) {
        return new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
            .feed(new UdpOptions().localAddress(loopback(0))).request(new UdpOptions().localAddress(loopback(0)))
            .requestServer(address(requestServer)).requestTimeoutNs(TIMEOUT_NS).maxRequestTimeoutNs(TIMEOUT_NS)
            .requestAttempts(1), listener);
    }

    private void send(final byte[] packet, final InetSocketAddress target) {
        try {
            assertThat(sender.send(ByteBuffer.wrap(packet), target)).isEqualTo(packet.length);
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private void runUntil(final BooleanSupplier condition) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition not reached in time").isLessThan(deadline);
            reactor.doWork();
        }
    }

    @ParameterizedTest
    @EnumSource(Callback.class)
    void shouldEndOnlyTheSubscriberWhoseListenerThrewAndDeliverNothingAfter(final Callback callback) throws Exception {
        final Recording victimListener = new Recording();
        final Recording bystanderListener = new Recording();
        final MoldUDP64Subscriber victim = subscriber(victimListener);
        final MoldUDP64Subscriber bystander = subscriber(bystanderListener);
        final InetSocketAddress feed = victim.feedEndpoint().localAddress();
        final InetSocketAddress requestSocket = victim.requestEndpoint().localAddress();

        victimListener.fault.arm(callback);
        provoke(callback, victim, feed);
        runUntil(() -> victimListener.fault.thrown() == 1);
        final long deliveredAtFailure = victimListener.messages();
        for (int i = 0; i < 100; i++) {
            reactor.doWork();
        }

        assertThat(victim.state()).isEqualTo(MoldUDP64SubscriberState.FAILED);
        assertThat(victim.failure()).startsWith("listener failed in " + callbackName(callback))
            .contains("thrown by the test from " + callback);
        assertThat(victim.handlerFailures()).isEqualTo(1);
        assertThat(victimListener.events.getLast()).as("FAILED is the last call").isEqualTo("FAILED at " + victim.nextExpected());
        assertThat(victimListener.events.stream().filter(event -> event.startsWith("FAILED")).count()).isEqualTo(1);
        assertThat(errors).singleElement().satisfies(error -> assertThat(error)
            .hasMessageContaining("MoldUDP64 listener failed in " + callbackName(callback))
            .hasMessageContaining("the subscriber is FAILED").hasRootCauseMessage("thrown by the test from " + callback));
        assertThat(victim.feedEndpoint().isClosed()).isTrue();
        assertThat(victim.requestEndpoint().isClosed()).isTrue();
        if (callback == Callback.ON_MESSAGE) {
            assertThat(victimListener.events).as("not the rest of the packet").containsExactly("message 1", "FAILED at 2");
        }

        // more traffic for the victim reaches nobody; the bystander on the same reactor receives all of its own
        final int eventsAtFailure = victimListener.events.size();
        final long requestsAtFailure = victim.requests();
        send(packet(SESSION, 20, 2, numbered(20, 2)), feed);
        for (long sequence = 1; sequence <= 5; sequence++) {
            send(packet(SESSION, sequence, 1, numbered(sequence, 1)), bystander.feedEndpoint().localAddress());
        }
        runUntil(() -> bystander.delivered() == 5);
        clock.now += 10 * TIMEOUT_NS;
        for (int i = 0; i < 100; i++) {
            reactor.doWork();
        }
        assertThat(victimListener.events).hasSize(eventsAtFailure);
        assertThat(victimListener.messages()).isEqualTo(deliveredAtFailure);
        assertThat(victim.requests()).isEqualTo(requestsAtFailure);
        assertThat(bystanderListener.events).containsExactly("message 1", "message 2", "message 3", "message 4", "message 5");
        assertThat(bystander.state()).isEqualTo(MoldUDP64SubscriberState.SYNCHRONISED);
        assertThat(errors).hasSize(1);
        try (DatagramSocket feedAgain = new DatagramSocket(feed); DatagramSocket requestAgain = new DatagramSocket(requestSocket)) {
            assertThat(feedAgain.getLocalPort()).as("sockets released").isEqualTo(feed.getPort());
            assertThat(requestAgain.getLocalPort()).isEqualTo(requestSocket.getPort());
        }
        victim.close(); // after a failure: does nothing more, throws nothing
        bystander.close();
        assertThat(errors).hasSize(1);
    }

    private static String callbackName(final Callback callback) {
        return switch (callback) {
            case ON_MESSAGE -> "onMessage";
            case ON_STATE_CHANGE -> "onStateChange";
            case ON_GAP_FILLED -> "onGapFilled";
            case ON_UNRECOVERABLE -> "onUnrecoverable";
        };
    }

    private void provoke(final Callback callback, final MoldUDP64Subscriber victim, final InetSocketAddress feed) {
        switch (callback) {
            case ON_MESSAGE -> send(packet(SESSION, 1, 3, numbered(1, 3)), feed);
            case ON_STATE_CHANGE -> {
                victimOk(victim, feed);
                send(packet(SESSION, 3, 1, numbered(3, 1)), feed); // a gap: RECOVERING
            }
            case ON_GAP_FILLED -> {
                victimOk(victim, feed);
                send(packet(SESSION, 3, 1, numbered(3, 1)), feed);
                final ByteBuffer request = ByteBuffer.allocate(64);
                runUntil(() -> {
                    try {
                        return requestServer.receive(request) != null;
                    } catch (final IOException ex) {
                        throw new UncheckedIOException(ex);
                    }
                });
                try { // the answer, from the request server: another sender's is dropped
                    final byte[] answer = packet(SESSION, 2, 1, numbered(2, 1));
                    assertThat(requestServer.send(ByteBuffer.wrap(answer), victim.requestEndpoint().localAddress()))
                        .isEqualTo(answer.length);
                } catch (final IOException ex) {
                    throw new UncheckedIOException(ex);
                }
            }
            case ON_UNRECOVERABLE -> {
                victimOk(victim, feed);
                send(packet(SESSION, 3, 1, numbered(3, 1)), feed);
                runUntil(() -> victim.requests() == 1);
                clock.now += 2 * TIMEOUT_NS; // the one attempt times out unanswered
            }
            default -> throw new AssertionError(callback);
        }
    }

    /** Message 1 reaches the victim before the fault. */
    private void victimOk(final MoldUDP64Subscriber victim, final InetSocketAddress feed) {
        send(packet(SESSION, 1, 1, numbered(1, 1)), feed);
        runUntil(() -> victim.delivered() == 1);
    }

    @Test
    void shouldEndThePublisherWhosePacketFilterThrewAndKeepTheReactorGoing() throws Exception {
        final int[] calls = {0};
        final MoldUDP64PacketFilter throwing = (sequence, count) -> {
            if (++calls[0] == 2) {
                throw new IllegalStateException("thrown by the test from the packet filter");
            }
            return true;
        };
        final Recording bystanderListener = new Recording();
        final MoldUDP64Subscriber bystander = subscriber(bystanderListener);
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory(SESSION, 1024, 1 << 16)) {
            final MoldUDP64Publisher publisher = new MoldUDP64Publisher(reactor, store, new MoldUDP64PublisherOptions()
                .destination(bystander.feedEndpoint().localAddress()).udp(new UdpOptions().localAddress(loopback(0)))
                .filter(throwing));
            final InetSocketAddress publisherAddress = publisher.endpoint().localAddress();
            final MemorySegment message = MemorySegment.ofArray(new byte[8]);
            assertThat(publisher.offer(message, 0, 8)).isEqualTo(1);
            runUntil(() -> bystander.delivered() == 1);
            assertThat(publisher.offer(message, 0, 8)).isEqualTo(2);
            runUntil(() -> calls[0] == 2); // flushed at the end of a cycle: the filter throws

            assertThat(publisher.failure()).startsWith("packet filter failed on the packet of sequence 2 count 1: ")
                .contains("thrown by the test from the packet filter");
            assertThat(publisher.handlerFailures()).isEqualTo(1);
            assertThat(publisher.isDone()).as("socket released").isTrue();
            assertThat(publisher.offer(message, 0, 8)).isEqualTo(MoldUDP64Publisher.CLOSED);
            publisher.close(); // no end of session through a failed filter
            clock.now += TimeUnit.SECONDS.toNanos(10); // no heartbeat either
            for (int i = 0; i < 100; i++) {
                reactor.doWork();
            }
            assertThat(calls[0]).isEqualTo(2);
            assertThat(errors).singleElement().satisfies(error -> assertThat(error)
                .hasMessageContaining("the publisher is closed").hasRootCauseMessage("thrown by the test from the packet filter"));
            try (DatagramSocket again = new DatagramSocket(publisherAddress)) {
                assertThat(again.getLocalPort()).isEqualTo(publisherAddress.getPort());
            }
            // the reactor goes on: the subscriber it fed still receives from elsewhere
            send(packet(SESSION, 2, 2, numbered(2, 2)), bystander.feedEndpoint().localAddress());
            runUntil(() -> bystander.delivered() == 3);
            assertThat(bystanderListener.events).containsExactly("message 1", "message 2", "message 3");
            bystander.close();
        }
    }

    @Test
    void shouldLeakNoDescriptorWhenListenersThrowAThousandTimes() {
        failOnce(); // warm up: classes, the JDK's own descriptors
        final long before = FileDescriptors.open();
        for (int i = 0; i < 1000; i++) {
            failOnce();
        }
        assertThat(FileDescriptors.open()).as("a leak is +1000 or +2000; the collector may close others' meanwhile")
            .isLessThanOrEqualTo(before);
        assertThat(errors).hasSize(1001);
    }

    private void failOnce() {
        final MoldUDP64Subscriber subscriber = subscriber((sequence, buffer, offset, length) -> {
            throw new IllegalStateException("thrown by the test");
        });
        send(packet(SESSION, 1, 1, numbered(1, 1)), subscriber.feedEndpoint().localAddress());
        runUntil(() -> subscriber.state() == MoldUDP64SubscriberState.FAILED);
    }

    @Test
    void shouldLeakNoDescriptorWhenSubscribersAndRequestServersFailToOpenAThousandTimes() throws IOException {
        try (DatagramSocket taken = new DatagramSocket(loopback(0));
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory(SESSION, 16, 1 << 16)) {
            final InetSocketAddress inUse = (InetSocketAddress)taken.getLocalSocketAddress();
            failToOpen(inUse, store); // warm up
            final long before = FileDescriptors.open();
            for (int i = 0; i < 1000; i++) {
                failToOpen(inUse, store);
            }
            assertThat(FileDescriptors.open()).as("a leak is +1000 or more; the collector may close others' meanwhile")
                .isLessThanOrEqualTo(before);
        }
    }

    private void failToOpen(final InetSocketAddress inUse, final MoldUDP64MessageStore store) {
        final MoldUDP64Listener listener = (sequence, buffer, offset, length) -> { };
        assertThatThrownBy(() -> new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
            .feed(new UdpOptions().localAddress(inUse)), listener))
            .as("the feed socket cannot bind").isInstanceOf(UncheckedIOException.class);
        assertThatThrownBy(() -> new MoldUDP64Subscriber(reactor, new MoldUDP64SubscriberOptions()
            .feed(new UdpOptions().localAddress(loopback(0))).request(new UdpOptions().localAddress(inUse)), listener))
            .as("the feed socket is open when the request socket cannot bind").isInstanceOf(UncheckedIOException.class);
        assertThatThrownBy(() -> new MoldUDP64RequestServer(reactor, store, new UdpOptions().localAddress(inUse),
            MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, 100, 5)).isInstanceOf(UncheckedIOException.class);
        assertThatThrownBy(() -> new MoldUDP64RequestServer(reactor, store, new UdpOptions().localAddress(loopback(0))
            .datagramBuffer(100), MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, 100, 5))
            .as("the socket is open when the payload check fails").isInstanceOf(IllegalArgumentException.class);
        reactor.doWork(); // a registered channel's descriptor is closed once the selector has dropped its key
    }
}
