package dev.peregrine.tcp;

import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.TimerHandler;

/**
 * A {@link TcpTransport}'s use of the reactor's timer wheel: events deferred to a later cycle (listening, a
 * connect that failed before its socket existed, frames left behind by a pause), connect and linger timeouts, and
 * a server's accept pause. One stored {@link TimerHandler} whose cookie is the channel or server id: nothing is
 * queued, dropped or allocated. A handler that throws from a timer's event closes that channel or server only.
 *
 * <p>Not thread-safe: the reactor's thread only.
 */
final class TcpTimers {
    private final TcpTransport transport;
    private final Reactor reactor;
    private final TcpOptions options;
    private final TimerHandler timerHandler = this::onTimer;

    TcpTimers(final TcpTransport transport, final Reactor reactor, final TcpOptions options) {
        this.transport = transport;
        this.reactor = reactor;
        this.options = options;
    }

    /** Delivers the event waiting for {@code id} on a later cycle, never from inside the command that made it. */
    void deferEvent(final long id) {
        // a deadline already due fires on the next timer poll: after this command returns
        reactor.timers().schedule(reactor.nowNs(), timerHandler, id);
    }

    /** Schedules the connect timeout of a connecting channel; returns the timer id. */
    long scheduleConnectTimeout(final long channelId) {
        return reactor.timers().schedule(deadlineAfter(options.connectTimeoutNs()), timerHandler, channelId);
    }

    /** Schedules the linger timeout of a closing channel; returns the timer id. */
    long scheduleLinger(final long channelId, final long lingerNs) {
        return reactor.timers().schedule(deadlineAfter(lingerNs), timerHandler, channelId);
    }

    /** Schedules a server's timer ({@link TcpServer#onTimer}) this long from now. */
    void scheduleServerTimer(final long serverId, final long delayNs) {
        reactor.timers().schedule(deadlineAfter(delayNs), timerHandler, serverId);
    }

    void cancel(final long timerId) {
        if (timerId >= 0) {
            reactor.timers().cancel(timerId);
        }
    }

    /**
     * The deadline of a timeout that starts now, from the clock rather than the cycle's {@link Reactor#nowNs()}: a
     * command from the application's own code between two duty cycles (a {@link TcpTransport#close(long)} in a loop
     * that drives the reactor itself) may come long after the cycle read the clock, and its timeout would be short by
     * that much. Only connects, closes with bytes left and accept pauses get here, so the read costs nothing that
     * matters. The sum saturates: the options take any timeout, and {@code TimeUnit.toNanos} saturates at
     * {@link Long#MAX_VALUE}, so an "infinite" timeout would wrap to a deadline in the past and fire at once; the
     * timer wheel never fires a deadline of {@link Long#MAX_VALUE}.
     */
    private long deadlineAfter(final long delayNs) {
        final long now = reactor.clock().nanoTime();
        final long deadline = now + delayNs;
        return deadline < now ? Long.MAX_VALUE : deadline; // delays are never negative: a smaller sum wrapped
    }

    private void onTimer(final long timerId, final long id, final long nowNs) {
        try {
            if (TcpIds.isServer(id)) {
                transport.servers().onTimer(id);
            } else {
                onConnectionTimer(timerId, id);
            }
        } catch (final Throwable ex) {
            if (TcpIds.isServer(id)) {
                transport.servers().handlerFailed(id, ex);
            } else {
                transport.handlerFailed(transport.connection(id), ex);
            }
        }
    }

    private void onConnectionTimer(final long timerId, final long id) {
        final TcpConnection connection = transport.connection(id);
        if (connection == null) {
            return;
        }
        if (connection.state() == TcpConnection.CLOSING) {
            connection.lingerExpired(timerId); // or an event deferred before the close: dropped
            return;
        }
        if (connection.state() == TcpConnection.CONNECTED) {
            connection.decodeRemainder(); // deferred by resumeReading
            return;
        }
        if (connection.state() != TcpConnection.CONNECTING) {
            return;
        }
        if (connection.hasFailedBeforeSocket()) {
            connection.deliverFailureBeforeSocket();
        } else {
            connection.connectTimedOut(options.connectTimeoutNs());
        }
    }
}
