package dev.peregrine.shm;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.TimerHandler;

import java.net.UnixDomainSocketAddress;
import java.util.Arrays;

/**
 * The completions of {@link ShmTransport#listen} and {@link ShmTransport#connect} that are known inside the call
 * ({@code onListening}, {@code onListenFailed}, {@code onConnectFailed}): each is delivered on a later cycle through
 * the reactor's timer wheel, never from inside the call, never lost, and without allocating in steady state.
 *
 * <p>Not thread-safe: the reactor's thread only.
 */
final class ShmTransportCompletions {
    private final ShmTransport transport;
    private final Reactor reactor;
    private final ChannelHandler handler;
    private final TimerHandler timerHandler = this::onTimer;
    private long[] failedIds = new long[4];
    private boolean[] failedListens = new boolean[4];
    private String[] failedReasons = new String[4];
    private int failedCount;

    ShmTransportCompletions(final ShmTransport transport, final Reactor reactor, final ChannelHandler handler) {
        this.transport = transport;
        this.reactor = reactor;
        this.handler = handler;
    }

    /**
     * Delivers a completion on a later cycle through the timer wheel (a deadline already due fires on the next
     * poll): unlike the reactor's hand-over queue, which other threads may fill, nothing is dropped, and the
     * timer's cookie (the id) is all it needs, so nothing is allocated. A failure's reason waits in the
     * failed* arrays (grown only when more failures are pending than ever before).
     *
     * @param reason null for {@code onListening}, otherwise why the listen or connect failed
     */
    void defer(final long id, final boolean server, final String reason) {
        if (reason != null) {
            if (failedCount == failedIds.length) {
                failedIds = Arrays.copyOf(failedIds, failedCount * 2);
                failedListens = Arrays.copyOf(failedListens, failedCount * 2);
                failedReasons = Arrays.copyOf(failedReasons, failedCount * 2);
            }
            failedIds[failedCount] = id;
            failedListens[failedCount] = server;
            failedReasons[failedCount] = reason;
            failedCount++;
        }
        reactor.timers().schedule(reactor.nowNs(), timerHandler, id);
    }

    private void onTimer(final long timerId, final long id, final long nowNs) {
        try {
            for (int i = 0; i < failedCount; i++) {
                if (failedIds[i] == id) {
                    final boolean listen = failedListens[i];
                    final String reason = failedReasons[i];
                    failedCount--;
                    failedIds[i] = failedIds[failedCount];
                    failedListens[i] = failedListens[failedCount];
                    failedReasons[i] = failedReasons[failedCount];
                    failedReasons[failedCount] = null;
                    if (listen) {
                        handler.onListenFailed(id, reason);
                    } else {
                        handler.onConnectFailed(id, reason);
                    }
                    return;
                }
            }
            final UnixDomainSocketAddress listening = transport.listeningAddress(id);
            if (listening != null) { // not if the application closed it first: nothing after onClosed
                handler.onListening(id, listening);
            }
        } catch (final Throwable ex) {
            transport.handlerFailed(null, ex);
        }
    }
}
