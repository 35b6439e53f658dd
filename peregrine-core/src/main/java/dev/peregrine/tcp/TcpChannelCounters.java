package dev.peregrine.tcp;

import dev.peregrine.counters.Counter;
import dev.peregrine.counters.CounterTypes;
import dev.peregrine.counters.CountersManager;

/**
 * The counters of one TCP channel, made when it opens and freed when it closes; each change also goes to
 * the transport's totals. Written on the reactor thread.
 */
final class TcpChannelCounters {
    private final TcpCounters totals;
    private final Counter bytesIn;
    private final Counter bytesOut;
    private final Counter messagesIn;
    private final Counter messagesOut;
    private final Counter backPressureEvents;
    private final Counter pausedReadingNs;

    TcpChannelCounters(final CountersManager manager, final TcpCounters totals, final long channelId,
        final Object remoteAddress) {
        this.totals = totals;
        final String label = totals.label + " channel=" + channelId + " remote=" + remoteAddress;
        this.bytesIn = manager.allocate(CounterTypes.TCP_BYTES_IN, label);
        this.bytesOut = manager.allocate(CounterTypes.TCP_BYTES_OUT, label);
        this.messagesIn = manager.allocate(CounterTypes.TCP_MESSAGES_IN, label);
        this.messagesOut = manager.allocate(CounterTypes.TCP_MESSAGES_OUT, label);
        this.backPressureEvents = manager.allocate(CounterTypes.TCP_BACK_PRESSURE_EVENTS, label);
        this.pausedReadingNs = manager.allocate(CounterTypes.TCP_PAUSED_READING_NS, label);
    }

    void bytesIn(final int bytes) {
        bytesIn.add(bytes);
        totals.bytesIn.add(bytes);
    }

    void written(final int bytes, final int frames) {
        if (bytes != 0) {
            bytesOut.add(bytes);
            totals.bytesOut.add(bytes);
        }
        if (frames != 0) {
            messagesOut.add(frames);
            totals.messagesOut.add(frames);
        }
    }

    void messagesIn(final int frames) {
        if (frames != 0) {
            messagesIn.add(frames);
            totals.messagesIn.add(frames);
        }
    }

    void backPressured() {
        backPressureEvents.increment();
        totals.backPressureEvents.increment();
    }

    void pausedReading(final long ns) {
        pausedReadingNs.add(ns);
        totals.pausedReadingNs.add(ns);
    }

    void close() {
        bytesIn.close();
        bytesOut.close();
        messagesIn.close();
        messagesOut.close();
        backPressureEvents.close();
        pausedReadingNs.close();
    }
}
