package dev.peregrine.handoff;

import dev.peregrine.channel.ChannelCommand;
import dev.peregrine.channel.ChannelEvent;
import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.CommandRecorder;
import dev.peregrine.channel.EventRecorder;
import dev.peregrine.channel.ScriptedTransport;
import dev.peregrine.channel.Transport;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.reactor.YieldingIdleStrategy;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same handler, unchanged, under the shared stack (on the test thread) and the separated stack (its own
 * thread, the transport on a reactor thread): a scripted run of every kind of event gives the same recorded event
 * stream and the same command stream, at the handler and at the transport; and the separated run's recording
 * replays through {@link ScriptedTransport} like a shared one.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SeparatedStackReplayTest {
    private static final long WAIT_LIMIT_NS = 30_000_000_000L;
    private static final SocketAddress LISTEN = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final SocketAddress LISTEN_TOO = UnixDomainSocketAddress.of("/tmp/peregrine-replay-é.sock");
    private static final SocketAddress REMOTE = new InetSocketAddress("::1", 9);
    private static final SocketAddress NOWHERE = InetSocketAddress.createUnresolved("nowhere.invalid", 7);

    /** ids as ScriptedTransport hands them out: listen 1, connect 2, listen 3, connect 4. */
    private static final List<ChannelEvent> SCRIPT = List.of(
        new ChannelEvent.Listening(1, new InetSocketAddress(InetAddress.getLoopbackAddress(), 40_001)),
        new ChannelEvent.ListenFailed(3, "bind failed: Address already in use – /tmp/peregrine-replay-é.sock"),
        new ChannelEvent.Connected(2, REMOTE),
        new ChannelEvent.ConnectFailed(4, "connect refused: nowhere.invalid:7"),
        new ChannelEvent.Accepted(1, 10, InetSocketAddress.createUnresolved("peer.example", 5)),
        ChannelEvent.Message.of(10, "ping"),
        ChannelEvent.Message.of(2, "pong"),
        new ChannelEvent.Sent(10, 9, 0),
        ChannelEvent.Message.of(10, ""),
        ChannelEvent.Message.of(10, "close"),
        new ChannelEvent.Closed(10, CloseReason.LOCAL, "closed by the application"),
        ChannelEvent.Message.of(2, "abort"),
        new ChannelEvent.Closed(2, CloseReason.RESET, "Connection reset"));

    /** The application: listens and connects twice, greets, echoes, closes or aborts on request. */
    static final class Application implements ChannelHandler {
        private final Transport transport;
        private final MemorySegment out = MemorySegment.ofArray(new byte[64]);
        final AtomicInteger events = new AtomicInteger();

        Application(final Transport transport) {
            this.transport = transport;
        }

        void start() {
            transport.listen(LISTEN);
            transport.connect(REMOTE);
            transport.listen(LISTEN_TOO);
            transport.connect(NOWHERE);
        }

        private void send(final long channelId, final String text) {
            final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            MemorySegment.copy(MemorySegment.ofArray(bytes), 0, out, 0, bytes.length);
            transport.send(channelId, out, 0, bytes.length);
        }

        @Override
        public void onListening(final long serverId, final SocketAddress localAddress) {
            events.incrementAndGet();
        }

        @Override
        public void onListenFailed(final long serverId, final String reason) {
            events.incrementAndGet();
        }

        @Override
        public void onAccepted(final long serverId, final long channelId, final SocketAddress remoteAddress) {
            send(channelId, "hello " + serverId);
            events.incrementAndGet();
        }

        @Override
        public void onConnected(final long channelId, final SocketAddress remoteAddress) {
            send(channelId, "hi");
            events.incrementAndGet();
        }

        @Override
        public void onConnectFailed(final long channelId, final String reason) {
            events.incrementAndGet();
        }

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            final String text = new String(buffer.asSlice(offset, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                StandardCharsets.UTF_8);
            if (text.equals("close")) {
                transport.close(channelId);
            } else if (text.equals("abort")) {
                transport.abort(channelId);
            } else {
                transport.send(channelId, buffer, offset, length);
            }
            events.incrementAndGet();
        }

        @Override
        public void onSent(final long channelId, final long bytesWritten, final long bytesBuffered) {
            events.incrementAndGet();
        }

        @Override
        public void onClosed(final long channelId, final CloseReason reason, final String detail) {
            events.incrementAndGet();
        }
    }

    private record Run(List<ChannelEvent> events, List<ChannelCommand> commands, List<ChannelCommand> atTransport) {
    }

    private static Run shared() {
        final ScriptedTransport scripted = new ScriptedTransport();
        final CommandRecorder commands = new CommandRecorder(scripted);
        final Application application = new Application(commands);
        final EventRecorder events = new EventRecorder(application);
        application.start();
        ChannelEvent.replay(SCRIPT, events);
        return new Run(events.events(), commands.commands(), scripted.commands());
    }

    private static Run separated() throws Exception {
        final List<Throwable> errors = new CopyOnWriteArrayList<>();
        final Reactor reactor = new Reactor(new ReactorOptions().name("replay-reactor").errorHandler(errors::add));
        final ScriptedTransport scripted = new ScriptedTransport();
        final ReactorCommandRing ring = new ReactorCommandRing(reactor, new CommandRingOptions().capacity(1 << 12));
        final SeparatedStack stack = new SeparatedStack(reactor, ring, 1 << 12);
        final CommandRecorder commands = new CommandRecorder(stack.attach(scripted));
        final Application application = new Application(commands);
        final EventRecorder events = new EventRecorder(application);
        final SeparatedAgent agent = new SeparatedAgent(stack, events, errors::add, 4);
        reactor.start();
        final WorkerRunner runner;
        try {
            application.start(); // before the runner starts: this thread is the application's until then
            runner = new WorkerRunner("replay-application", agent, new YieldingIdleStrategy(), -1).start();
            assertThat(reactor.execute(() -> ChannelEvent.replay(SCRIPT, stack))).isTrue();
            waitFor(() -> application.events.get() == SCRIPT.size(), "events=" + application.events.get());
            runner.close(); // joins: what the application thread recorded is seen from here on
            final long issued = commands.commands().size() - 4; // the four requests are not ring commands
            waitFor(() -> ring.delivered() + ring.discarded() == issued + 4, "delivered=" + ring.delivered());
        } finally {
            reactor.close(); // joins the reactor thread: what it recorded is seen from here on
        }
        assertThat(errors).isEmpty();
        assertThat(ring.discarded()).isZero();
        assertThat(stack.overflowed() + stack.dropped()).isZero();
        return new Run(events.events(), commands.commands(), scripted.commands());
    }

    private static void waitFor(final java.util.function.BooleanSupplier condition, final String progress) {
        final long deadline = System.nanoTime() + WAIT_LIMIT_NS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not reached in time: " + progress);
            }
            Thread.yield();
        }
    }

    @Test
    void shouldRecordTheSameEventsAndCommandsUnderBothStacks() throws Exception {
        final Run shared = shared();
        final Run separated = separated();
        assertThat(shared.events()).isEqualTo(SCRIPT);
        assertThat(separated.events()).isEqualTo(shared.events());
        assertThat(separated.commands()).isEqualTo(shared.commands());
        assertThat(separated.atTransport()).isEqualTo(shared.atTransport());
        assertThat(shared.commands()).hasSize(4 + 5 + 2); // 4 requests, hello/hi/ping/pong/empty echoes, close, abort
    }

    @Test
    void shouldReplayASeparatedRecordingThroughAScriptedTransportLikeASharedOne() throws Exception {
        final Run separated = separated();
        final ScriptedTransport replaying = ScriptedTransport.replaying(separated.commands());
        final Application application = new Application(replaying);
        application.start();
        ChannelEvent.replay(separated.events(), application);
        assertThat(replaying.commands()).isEqualTo(separated.commands());
    }

    @Test
    void shouldCarryEachAddressKindAndTextThroughTheRingUnchanged() {
        final MemorySegment buffer = MemorySegment.ofArray(new long[64]);
        for (final SocketAddress address : List.of(LISTEN, REMOTE, NOWHERE, LISTEN_TOO)) {
            final int length = EventCodec.putAddress(buffer, 8, address, 400);
            assertThat(EventCodec.getAddress(buffer, 8, length)).isEqualTo(address);
        }
        assertThat(EventCodec.getAddress(buffer, 8, EventCodec.putAddress(buffer, 8, null, 400))).isNull();
        final int length = EventCodec.putText(buffer, 0, "déjà – €", 400);
        assertThat(EventCodec.getText(buffer, 0, length)).isEqualTo("déjà – €");
        assertThat(EventCodec.getText(buffer, 0, EventCodec.putText(buffer, 0, "abcdef", 8))).isEqualTo("ab");
    }
}
