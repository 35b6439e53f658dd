package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.EventRecorder;
import dev.peregrine.reactor.NanoClock;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reactor driven by the test's own thread, a transport on it, and a recording of every event.
 */
final class TcpTestRig implements AutoCloseable {
    static final InetSocketAddress ANY_LOOPBACK_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final long POLL_LIMIT_NS = 10_000_000_000L;

    final List<Throwable> errors = new CopyOnWriteArrayList<>();
    final Reactor reactor;
    final EventRecorder recorder;
    final TcpTransport transport;

    TcpTestRig(final TcpOptions options) {
        this(options, (ChannelHandler)null);
    }

    TcpTestRig(final TcpOptions options, final ChannelHandler application) {
        this(options, application, NanoClock.SYSTEM);
    }

    /** A rig whose reactor reads the test's clock. */
    TcpTestRig(final TcpOptions options, final NanoClock clock) {
        this(options, null, clock);
    }

    private TcpTestRig(final TcpOptions options, final ChannelHandler application, final NanoClock clock) {
        this.reactor = new Reactor(new ReactorOptions().errorHandler(errors::add).clock(clock));
        this.recorder = new EventRecorder(application);
        this.transport = new TcpTransport(reactor, options, recorder);
    }

    /** Runs duty cycles until the condition holds; fails after a bounded time. */
    void pollUntil(final BooleanSupplier condition) {
        final long deadline = System.nanoTime() + POLL_LIMIT_NS;
        while (!condition.getAsBoolean()) {
            reactor.doWork();
            assertThat(System.nanoTime()).as("condition not reached in time; events: %s", recorder.events()).isLessThan(deadline);
        }
    }

    /** Runs duty cycles for a while, for things that must not happen. */
    void pollFor(final long millis) {
        final long deadline = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < deadline) {
            reactor.doWork();
            Thread.onSpinWait();
        }
    }

    /** Listens on a loopback port and returns the bound address. */
    InetSocketAddress listen() {
        final long serverId = transport.listen(ANY_LOOPBACK_PORT);
        pollUntil(() -> has(ChannelEvent.Listening.class));
        return (InetSocketAddress)transport.localAddress(serverId);
    }

    boolean has(final Class<? extends ChannelEvent> type) {
        return count(type) > 0;
    }

    long count(final Class<? extends ChannelEvent> type) {
        return recorder.events().stream().filter(type::isInstance).count();
    }

    <T extends ChannelEvent> List<T> all(final Class<T> type) {
        return recorder.events().stream().filter(type::isInstance).map(type::cast).toList();
    }

    <T extends ChannelEvent> T first(final Class<T> type) {
        return all(type).getFirst();
    }

    static MemorySegment text(final String text) {
        return MemorySegment.ofArray(text.getBytes(StandardCharsets.US_ASCII));
    }

    static ChannelEvent.Message message(final long channelId, final String text) {
        return ChannelEvent.Message.of(channelId, text);
    }

    @Override
    public void close() {
        transport.close();
        reactor.close();
    }
}
