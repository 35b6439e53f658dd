package dev.peregrine.handoff;

import dev.peregrine.channel.CloseReason;
import dev.peregrine.reactor.ErrorHandler;

import java.lang.foreign.MemorySegment;

/**
 * One worker's duty: reads its {@link WorkerRing} into the application's {@link WorkerHandler} and contains what
 * the handler throws. Call {@link #doWork()} from a {@link WorkerRunner} or from a thread of the application's own,
 * always the same one.
 *
 * <p>A handler call that throws:
 * <ul>
 *   <li>is counted ({@link #failures()}) and reported to the error handler;</li>
 *   <li>closes its channel through the command ring ({@link ReactorCommandRing#close(int, long)}), since only the
 *       reactor may close; while the ring is full the close is retried on each {@link #doWork()};</li>
 *   <li>makes the worker skip the channel's later messages ({@link #skipped()}) until its close arrives, which is
 *       still delivered to {@link WorkerHandler#onClosed};</li>
 *   <li>leaves every other channel going on.</li>
 * </ul>
 * At most {@code maxFailedChannels} channels are remembered as failing at once; past that a failing channel is
 * still closed and reported but its later messages are delivered.
 *
 * <p>Threading: not thread-safe, one worker thread; the counters may be read from any thread. Nothing allocates in
 * steady state (reporting a failure does).
 */
public final class WorkerAgent {
    private final WorkerRing ring;
    private final WorkerHandler handler;
    private final ReactorCommandRing commands;
    private final int transportIndex;
    private final ErrorHandler errorHandler;
    private final int readLimit;
    private final long[] failedChannels;
    private final boolean[] closeRequested;
    private final WorkerHandler guard = new Guard();
    private int failedCount;
    private long currentChannel;
    private int records;
    private boolean inHandler;
    private volatile long failures;
    private volatile long skipped;

    /**
     * Makes an agent for one worker.
     *
     * @param ring the worker's ring, {@link WorkerDemux#ring(int)}
     * @param handler the application's handler
     * @param commands the command ring through which failing channels are closed
     * @param transportIndex the transport's index in {@code commands}
     * @param errorHandler gets handler failures, on the worker thread; must be thread-safe if shared
     * @param readLimit most records one {@link #doWork()} takes, at least 1
     * @param maxFailedChannels channels remembered as failing at once, at least 1
     */
    public WorkerAgent(final WorkerRing ring, final WorkerHandler handler, final ReactorCommandRing commands,
                       final int transportIndex, final ErrorHandler errorHandler, final int readLimit,
                       final int maxFailedChannels) {
        if (ring == null || handler == null || commands == null || errorHandler == null) {
            throw new IllegalArgumentException("ring=" + ring + ", handler=" + handler + ", commands=" + commands
                + ", errorHandler=" + errorHandler + ": none may be null");
        }
        if (readLimit < 1 || maxFailedChannels < 1) {
            throw new IllegalArgumentException("readLimit=" + readLimit + ", maxFailedChannels=" + maxFailedChannels);
        }
        this.ring = ring;
        this.handler = handler;
        this.commands = commands;
        this.transportIndex = transportIndex;
        this.errorHandler = errorHandler;
        this.readLimit = readLimit;
        this.failedChannels = new long[maxFailedChannels];
        this.closeRequested = new boolean[maxFailedChannels];
    }

    /**
     * Retries pending closes, then delivers up to the read limit of records; the worker thread.
     *
     * @return records taken
     */
    public int doWork() {
        for (int i = 0; i < failedCount; i++) {
            if (!closeRequested[i]) {
                closeRequested[i] = commands.close(transportIndex, failedChannels[i]) == 0;
            }
        }
        records = 0;
        while (records < readLimit) {
            try {
                if (ring.read(guard, readLimit - records) == 0) {
                    break;
                }
            } catch (final RuntimeException ex) {
                if (!inHandler) {
                    throw ex; // not the application's: a fault of the ring itself must not be retried forever
                }
                inHandler = false;
                fail(currentChannel, ex); // the record that threw is consumed: the read goes on after it
            }
        }
        return records;
    }

    /**
     * Handler calls that threw.
     *
     * @return a count
     */
    public long failures() {
        return failures;
    }

    /**
     * Messages skipped because their channel had failed and was closing.
     *
     * @return a count
     */
    public long skipped() {
        return skipped;
    }

    private void fail(final long channelId, final RuntimeException ex) {
        failures = failures + 1;
        boolean known = false;
        for (int i = 0; i < failedCount; i++) {
            known |= failedChannels[i] == channelId;
        }
        if (!known) {
            final boolean requested = commands.close(transportIndex, channelId) == 0;
            if (failedCount < failedChannels.length) {
                failedChannels[failedCount] = channelId;
                closeRequested[failedCount] = requested;
                failedCount++;
            } else if (!requested) {
                errorHandler.onError(new IllegalStateException("worker could not close channelId=" + channelId
                    + ": the command ring is full and maxFailedChannels=" + failedChannels.length + " are failing"));
            }
        }
        errorHandler.onError(new IllegalStateException("worker handler threw for channelId=" + channelId
            + "; the channel is being closed", ex));
    }

    private int failedIndex(final long channelId) {
        for (int i = 0; i < failedCount; i++) {
            if (failedChannels[i] == channelId) {
                return i;
            }
        }
        return -1;
    }

    private void forget(final int index) {
        failedCount--;
        failedChannels[index] = failedChannels[failedCount];
        closeRequested[index] = closeRequested[failedCount];
    }

    /** Between the ring and the application's handler: skips failed channels, remembers the channel being called. */
    private final class Guard implements WorkerHandler {
        @Override
        public void onOpened(final long channelId) {
            records++;
            currentChannel = channelId;
            inHandler = true;
            handler.onOpened(channelId);
            inHandler = false;
        }

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            records++;
            if (failedCount > 0 && failedIndex(channelId) >= 0) {
                skipped = skipped + 1;
                return;
            }
            currentChannel = channelId;
            inHandler = true;
            handler.onMessage(channelId, buffer, offset, length);
            inHandler = false;
        }

        @Override
        public void onClosed(final long channelId, final CloseReason reason) {
            records++;
            if (failedCount > 0) {
                final int index = failedIndex(channelId);
                if (index >= 0) {
                    forget(index);
                }
            }
            currentChannel = channelId;
            inHandler = true;
            handler.onClosed(channelId, reason);
            inHandler = false;
        }
    }
}
