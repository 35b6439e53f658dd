package dev.peregrine.tcp;

import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.EventRecorder;
import dev.peregrine.reactor.NanoClock;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
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

    /**
     * Proves that nothing more comes of what the test did before this call, without a quiet window: a timer due now
     * is scheduled and waited for as an event. The timer wheel fires every timer due at or before it (an event
     * deferred to a later cycle, a timeout that expired) in the same poll or an earlier one, and the cycle that fires
     * it also selects (the rig's reactor selects on every cycle) and polls the pollables after this call. So when
     * this returns, whatever was due or ready when it was called has been delivered. For bytes that are still on
     * their way through the kernel, send a marker frame after them: {@link #awaitMarkerFrame}.
     */
    void awaitMarker() {
        final boolean[] fired = new boolean[1];
        reactor.timers().schedule(reactor.clock().nanoTime(), (timerId, cookie, nowNs) -> fired[0] = true, 0);
        pollUntil(() -> fired[0]);
    }

    /**
     * Writes a marker frame from a second peer after what must not arrive, waits for it to be delivered on its
     * channel as an event, then {@link #awaitMarker()}. The select that finds the marker readable runs after the
     * marker was written, so bytes that sat in another channel's socket before it are found readable in that select
     * too: a channel still read when it should not be (paused, closed) is read in that cycle. Where a test depends on
     * such bytes being there, it waits for them first ({@code /proc/net/tcp}'s receive queue).
     *
     * @param markerPeer a peer connected to one of the rig's servers
     * @param markerChannelId the channel the rig accepted for it
     * @param frame the marker, framed as the rig's options say
     */
    void awaitMarkerFrame(final Socket markerPeer, final long markerChannelId, final byte[] frame) throws IOException {
        final long before = messagesOn(markerChannelId);
        markerPeer.getOutputStream().write(frame);
        markerPeer.getOutputStream().flush();
        pollUntil(() -> messagesOn(markerChannelId) == before + 1);
        awaitMarker();
    }

    long messagesOn(final long channelId) {
        return all(ChannelEvent.Message.class).stream().filter(message -> message.channelId() == channelId).count();
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
