package dev.peregrine.shm;

import dev.peregrine.internal.jfr.FlightRecording;
import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JFR events of shared-memory channels: opened, the peer lost (closed in order, or its process killed),
 * and closed with the reason the handler got.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ShmJfrEventsTest {
    @TempDir
    Path dir;

    private final List<Throwable> errors = new ArrayList<>();

    private static void runUntil(final Reactor reactor, final BooleanSupplier condition) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition not reached in time").isLessThan(deadline);
            reactor.doWork();
        }
    }

    /** The events of one name about one channel: an earlier test's reactor may still be running. */
    private static List<RecordedEvent> of(final FlightRecording recording, final String name, final long channelId) {
        return recording.named(name).stream().filter(event -> event.getLong("channelId") == channelId).toList();
    }

    @Test
    void shouldRecordTheChannelsAndAPeerThatClosedInOrder() {
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("j.sock"));
        final ShmTransportTest.Recorder serverEvents = new ShmTransportTest.Recorder();
        final ShmTransportTest.Recorder clientEvents = new ShmTransportTest.Recorder();
        final ShmOptions options = new ShmOptions().ringCapacity(64 * 1024).ringDirectory(dir);
        try (FlightRecording recording = new FlightRecording();
             Reactor reactor = new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy()).errorHandler(errors::add));
             ShmTransport server = new ShmTransport(reactor, options, serverEvents);
             ShmTransport client = new ShmTransport(reactor, options, clientEvents)) {
            final long serverId = server.listen(address);
            runUntil(reactor, () -> serverEvents.events.contains("listening " + serverId));
            final long clientId = client.connect(address);
            runUntil(reactor, () -> clientEvents.events.contains("connected " + clientId) && serverEvents.accepted > 0);
            final long serverSideId = serverEvents.accepted;

            server.close(serverSideId);
            runUntil(reactor, () -> clientEvents.events.contains("closed " + clientId + " BY_PEER"));

            assertThat(of(recording, "ChannelOpened", clientId)).singleElement().satisfies(opened -> {
                assertThat(opened.getString("transport")).isEqualTo("shm");
                assertThat(opened.getLong("serverId")).isZero();
                assertThat(opened.getString("remoteAddress")).isEqualTo(address.toString());
            });
            assertThat(of(recording, "ChannelOpened", serverSideId)).singleElement()
                .satisfies(opened -> assertThat(opened.getLong("serverId")).isEqualTo(serverId));
            assertThat(of(recording, "ShmPeerLost", clientId)).singleElement().satisfies(lost -> {
                assertThat(lost.getBoolean("orderly")).isTrue();
                assertThat(lost.getString("remoteAddress")).isEqualTo(address.toString());
            });
            assertThat(of(recording, "ShmPeerLost", serverSideId)).isEmpty();
            assertThat(of(recording, "ChannelClosed", clientId)).singleElement().satisfies(closed -> {
                assertThat(closed.getString("reason")).isEqualTo("BY_PEER");
                assertThat(closed.getString("detail")).isEqualTo("peer closed the shared-memory channel");
            });
            assertThat(of(recording, "ChannelClosed", serverSideId)).singleElement().satisfies(closed -> {
                assertThat(closed.getString("reason")).isEqualTo("LOCAL");
                assertThat(closed.getString("detail")).isEqualTo("closed by the application");
            });
            assertThat(errors).isEmpty();
        }
    }

    @Test
    @Tag("slow")
    void shouldRecordAPeerWhoseProcessWasKilled() throws Exception {
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("k.sock"));
        final ShmTransportTest.Recorder events = new ShmTransportTest.Recorder();
        try (FlightRecording recording = new FlightRecording();
             Reactor reactor = new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy()).errorHandler(errors::add));
             ShmTransport transport = new ShmTransport(reactor, new ShmOptions().ringDirectory(dir), events)) {
            final long serverId = transport.listen(address);
            runUntil(reactor, () -> events.events.contains("listening " + serverId));
            final Process peer = ShmTwoProcessTest.startPeer("write", address.getPath().toString(), "10", "wait");
            final long id;
            try {
                runUntil(reactor, () -> events.accepted > 0);
                id = events.accepted;
                ShmTwoProcessTest.awaitLine(peer, "written");
                peer.destroyForcibly(); // SIGKILL: its ring is never marked closed
                peer.waitFor();
                runUntil(reactor, () -> events.events.contains("closed " + id + " RESET"));
            } finally {
                peer.destroyForcibly();
                peer.waitFor();
            }

            assertThat(of(recording, "ShmPeerLost", id)).singleElement()
                .satisfies(lost -> assertThat(lost.getBoolean("orderly")).isFalse());
            assertThat(of(recording, "ChannelClosed", id)).singleElement().satisfies(closed -> {
                assertThat(closed.getString("transport")).isEqualTo("shm");
                assertThat(closed.getString("reason")).isEqualTo("RESET");
                assertThat(closed.getString("detail"))
                    .isEqualTo("peer process died or dropped the rendezvous socket without closing its ring");
            });
            assertThat(errors).isEmpty();
        }
    }
}
