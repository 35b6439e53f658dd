package dev.peregrine.soup;

import dev.peregrine.channel.CloseReason;
import dev.peregrine.counters.Counter;
import dev.peregrine.counters.CounterTypes;
import dev.peregrine.counters.CountersManager;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The counters of one {@link SoupBinTcpServer}, in the reactor's counters file ({@code ./peregrine stat}); written on
 * the reactor thread, each where its event happens. Labels: {@code soup-server-N}, with {@code code=} for rejections,
 * {@code reason=} for closes and {@code kind=} for timeouts.
 */
final class SoupBinTcpServerCounters {
    /** Why the server or the peer closed a connection: the index of its {@code reason=} counter. */
    static final int CLOSED_LOGOUT = 0;
    static final int CLOSED_REJECTED = 1;
    static final int CLOSED_PROTOCOL_ERROR = 2;
    static final int CLOSED_TIMEOUT = 3;
    static final int CLOSED_FELL_BEHIND = 4;
    static final int CLOSED_BY_PEER = 5;
    static final int CLOSED_RESET = 6;
    static final int CLOSED_LOCAL = 7;
    private static final String[] CLOSE_LABELS = {"logout", "login-rejected", "protocol-error", "timeout", "fell-behind",
        "by-peer", "reset", "local"};
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    final String label;
    final Counter loginsAccepted;
    final Counter rejectedNotAuthorized;
    final Counter rejectedSessionNotAvailable;
    final Counter sequencedLive;
    final Counter sequencedReplayed;
    final Counter unsequencedReceived;
    final Counter heartbeatsSent;
    final Counter heartbeatsReceived;
    final Counter loginTimeouts;
    final Counter receiveTimeouts;
    final Counter clients;
    private final Counter[] closed = new Counter[CLOSE_LABELS.length];

    SoupBinTcpServerCounters(final CountersManager manager) {
        this.label = "soup-server-" + INSTANCES.incrementAndGet();
        this.loginsAccepted = manager.allocate(CounterTypes.SOUP_LOGINS_ACCEPTED, label);
        this.rejectedNotAuthorized = manager.allocate(CounterTypes.SOUP_LOGINS_REJECTED, label + " code=A");
        this.rejectedSessionNotAvailable = manager.allocate(CounterTypes.SOUP_LOGINS_REJECTED, label + " code=S");
        this.sequencedLive = manager.allocate(CounterTypes.SOUP_SEQUENCED_LIVE, label);
        this.sequencedReplayed = manager.allocate(CounterTypes.SOUP_SEQUENCED_REPLAYED, label);
        this.unsequencedReceived = manager.allocate(CounterTypes.SOUP_UNSEQUENCED_RECEIVED, label);
        this.heartbeatsSent = manager.allocate(CounterTypes.SOUP_HEARTBEATS_SENT, label);
        this.heartbeatsReceived = manager.allocate(CounterTypes.SOUP_HEARTBEATS_RECEIVED, label);
        this.loginTimeouts = manager.allocate(CounterTypes.SOUP_TIMEOUTS, label + " kind=login");
        this.receiveTimeouts = manager.allocate(CounterTypes.SOUP_TIMEOUTS, label + " kind=receive");
        this.clients = manager.allocate(CounterTypes.SOUP_CLIENTS, label);
        for (int i = 0; i < closed.length; i++) {
            closed[i] = manager.allocate(CounterTypes.SOUP_CONNECTIONS_CLOSED, label + " reason=" + CLOSE_LABELS[i]);
        }
    }

    /** The close counter of a reason the transport gave, for a connection the server did not close itself. */
    static int closedBy(final CloseReason reason) {
        return switch (reason) {
            case BY_PEER -> CLOSED_BY_PEER;
            case RESET -> CLOSED_RESET;
            case LOCAL -> CLOSED_LOCAL;
            case ERROR -> CLOSED_PROTOCOL_ERROR; // the transport's own: a packet over the maximum
        };
    }

    Counter closed(final int reason) {
        return closed[reason];
    }

    void close() {
        loginsAccepted.close();
        rejectedNotAuthorized.close();
        rejectedSessionNotAvailable.close();
        sequencedLive.close();
        sequencedReplayed.close();
        unsequencedReceived.close();
        heartbeatsSent.close();
        heartbeatsReceived.close();
        loginTimeouts.close();
        receiveTimeouts.close();
        clients.close();
        for (final Counter counter : closed) {
            counter.close();
        }
    }
}
