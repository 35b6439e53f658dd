package dev.peregrine.tcp;

import dev.peregrine.channel.CloseReason;
import dev.peregrine.counters.Counter;
import dev.peregrine.counters.CounterTypes;
import dev.peregrine.counters.CountersManager;

import java.util.concurrent.atomic.AtomicInteger;

/** The counters of one {@link TcpTransport}, all channels together; written on the reactor thread. */
final class TcpCounters {
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    final String label;
    final Counter bytesIn;
    final Counter bytesOut;
    final Counter messagesIn;
    final Counter messagesOut;
    final Counter backPressureEvents;
    final Counter pausedReadingNs;
    final Counter rejectedMalformed;
    final Counter rejectedReceiveBufferFull;
    final Counter accepted;
    final Counter open;
    private final Counter[] closedByReason;

    TcpCounters(final CountersManager manager) {
        this.label = "transport=tcp-" + INSTANCES.incrementAndGet();
        this.bytesIn = manager.allocate(CounterTypes.TCP_BYTES_IN, label);
        this.bytesOut = manager.allocate(CounterTypes.TCP_BYTES_OUT, label);
        this.messagesIn = manager.allocate(CounterTypes.TCP_MESSAGES_IN, label);
        this.messagesOut = manager.allocate(CounterTypes.TCP_MESSAGES_OUT, label);
        this.backPressureEvents = manager.allocate(CounterTypes.TCP_BACK_PRESSURE_EVENTS, label);
        this.pausedReadingNs = manager.allocate(CounterTypes.TCP_PAUSED_READING_NS, label);
        this.rejectedMalformed = manager.allocate(CounterTypes.TCP_FRAMES_REJECTED, label + " reason=malformed");
        this.rejectedReceiveBufferFull = manager.allocate(CounterTypes.TCP_FRAMES_REJECTED,
            label + " reason=receive-buffer-full");
        this.accepted = manager.allocate(CounterTypes.TCP_CONNECTIONS_ACCEPTED, label);
        this.open = manager.allocate(CounterTypes.TCP_CONNECTIONS_OPEN, label);
        final CloseReason[] reasons = CloseReason.values();
        this.closedByReason = new Counter[reasons.length];
        for (final CloseReason reason : reasons) {
            closedByReason[reason.ordinal()] = manager.allocate(CounterTypes.TCP_CONNECTIONS_CLOSED,
                label + " reason=" + reason.name().toLowerCase(java.util.Locale.ROOT));
        }
    }

    Counter closed(final CloseReason reason) {
        return closedByReason[reason.ordinal()];
    }

    void close() {
        bytesIn.close();
        bytesOut.close();
        messagesIn.close();
        messagesOut.close();
        backPressureEvents.close();
        pausedReadingNs.close();
        rejectedMalformed.close();
        rejectedReceiveBufferFull.close();
        accepted.close();
        open.close();
        for (final Counter counter : closedByReason) {
            counter.close();
        }
    }
}
