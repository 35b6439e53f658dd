package dev.peregrine.broadcast;

import dev.peregrine.reactor.ErrorHandler;
import dev.peregrine.reactor.Pollable;

/**
 * A broadcast reader on the reactor: each duty cycle delivers up to a batch of records through the handler. A
 * handler that throws fails this reader only (reported to the error handler and counted); the reactor goes on.
 * Not thread-safe: the reactor's thread.
 */
public final class BroadcastPollable implements Pollable, AutoCloseable {
    private final BroadcastReader reader;
    private final BroadcastHandler handler;
    private final ErrorHandler errorHandler;
    private final int batch;
    private long handlerErrors;

    /**
     * Wraps a reader.
     *
     * @param reader the reader, now owned by this
     * @param handler receives records and events
     * @param errorHandler receives what the handler throws
     * @param batch most records per duty cycle, at least 1
     */
    public BroadcastPollable(final BroadcastReader reader, final BroadcastHandler handler,
        final ErrorHandler errorHandler, final int batch) {
        if (reader == null || handler == null || errorHandler == null || batch < 1) {
            throw new IllegalArgumentException("reader=" + reader + ", handler=" + handler + ", errorHandler="
                + errorHandler + ", batch=" + batch);
        }
        this.reader = reader;
        this.handler = handler;
        this.errorHandler = errorHandler;
        this.batch = batch;
    }

    @Override
    public int doWork(final long nowNs) {
        try {
            return reader.poll(handler, batch);
        } catch (final RuntimeException ex) {
            handlerErrors++;
            errorHandler.onError(ex);
            reader.failByHandler(ex);
            return 1;
        }
    }

    /**
     * Exceptions the handler threw (each failed the reader).
     *
     * @return the count
     */
    public long handlerErrors() {
        return handlerErrors;
    }

    /**
     * The reader underneath.
     *
     * @return the reader
     */
    public BroadcastReader reader() {
        return reader;
    }

    /** Closes the reader. */
    @Override
    public void close() {
        reader.close();
    }
}
