package dev.peregrine.soup;

import dev.peregrine.mold.MoldUDP64GapReason;
import dev.peregrine.mold.MoldUDP64Listener;
import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.mold.MoldUDP64Subscriber;
import dev.peregrine.mold.MoldUDP64SubscriberOptions;
import dev.peregrine.mold.MoldUDP64SubscriberState;
import dev.peregrine.reactor.Reactor;

import java.lang.foreign.MemorySegment;

/**
 * A MoldUDP64 feed served over SoupBinTCP: a {@link MoldUDP64Subscriber} whose messages (gaps recovered, in order,
 * each once) are published into a {@link SoupBinTcpSession}, whose server replays them from the session's store and
 * sends them live. The same sequence numbers on both sides.
 *
 * <ul>
 *   <li>Where the store starts: a store that already holds messages (a file-backed one, reopened) goes on from its
 *       next sequence number, which the gateway sets as the subscriber's start; otherwise the subscriber's start
 *       ({@link MoldUDP64SubscriberOptions#startSequence}) decides: {@code n >= 1} starts the store at {@code n} and
 *       recovers from there, {@code 0} joins mid-session and starts the store at the first message seen
 *       ({@link MoldUDP64MessageStore#startAt}). A login for an earlier sequence then gets Login Rejected {@code S}
 *       (the store never held it). Until that first message, {@link #firstSequence()} is 0: an authenticator may
 *       answer {@code S} meanwhile.</li>
 *   <li>End of Session: once the subscriber has delivered everything up to MoldUDP64's End of Session
 *       ({@link MoldUDP64SubscriberState#END_OF_SESSION}), the session ends: each client gets End of Session
 *       ({@code Z}) after the last message it is sent. Messages of a later MoldUDP64 session are not served (this
 *       session has ended); they are counted ({@link #ignoredAfterEnd()}).</li>
 *   <li>A gap that cannot be recovered stops the flow: the session is not ended (clients would take the stream
 *       for complete) and {@link #state()} says {@code UNRECOVERABLE}, {@link #failure()} why.</li>
 * </ul>
 * Nothing allocates per message. Not thread-safe: the subscriber and the server share one reactor thread.
 */
public final class MoldToSoupGateway implements AutoCloseable {
    private final SoupBinTcpSession session;
    private final MoldUDP64MessageStore store;
    private final MoldUDP64Subscriber subscriber;
    private long firstSequence;
    private long ignoredAfterEnd;
    private MoldUDP64SubscriberState state = MoldUDP64SubscriberState.SYNCHRONISED;
    private String failure;

    /**
     * Opens the subscriber (its sockets join the reactor) and feeds the session from it.
     *
     * @param reactor the reactor of the session's server
     * @param session the session to fill; nothing else may publish into it
     * @param options the MoldUDP64 side: feed, group, request server, start; its start sequence is set here when
     *     the store already holds messages
     * @throws IllegalArgumentException if an argument is null
     * @throws IllegalStateException if the session has ended
     */
    public MoldToSoupGateway(final Reactor reactor, final SoupBinTcpSession session, final MoldUDP64SubscriberOptions options) {
        if (reactor == null || session == null || options == null) {
            throw new IllegalArgumentException("reactor=" + reactor + " session=" + session + " options=" + options);
        }
        if (session.isEnded()) {
            throw new IllegalStateException("session=" + session.name() + " has ended: nothing more can be served in it");
        }
        this.session = session;
        this.store = session.store();
        if (store.nextSequence() > 1 || store.firstSequence() > 1) { // holds messages, or was started later already
            options.startSequence(store.nextSequence());
            firstSequence = store.firstSequence();
        } else if (options.startSequence() >= 1) {
            if (options.startSequence() > 1) {
                store.startAt(options.startSequence());
            }
            firstSequence = options.startSequence();
        }
        this.subscriber = new MoldUDP64Subscriber(reactor, options, new Feed());
    }

    /**
     * The first sequence number the store holds for this session, as the gateway started it.
     *
     * @return the number, or 0 while a gateway that joins mid-session has seen no message yet
     */
    public long firstSequence() {
        return firstSequence;
    }

    /**
     * The subscriber's state, as last reported to the gateway.
     *
     * @return the state
     */
    public MoldUDP64SubscriberState state() {
        return state;
    }

    /**
     * Why the feed stopped (a gap that cannot be recovered, a subscriber failure), or null.
     *
     * @return the reason, or null
     */
    public String failure() {
        return failure != null ? failure : subscriber.failure();
    }

    /**
     * Messages of a later MoldUDP64 session, received after this session ended and not served.
     *
     * @return the count
     */
    public long ignoredAfterEnd() {
        return ignoredAfterEnd;
    }

    /**
     * The MoldUDP64 side, for its counters and its feed address.
     *
     * @return the subscriber
     */
    public MoldUDP64Subscriber subscriber() {
        return subscriber;
    }

    /**
     * The SoupBinTCP side.
     *
     * @return the session
     */
    public SoupBinTcpSession session() {
        return session;
    }

    /** Closes the subscriber; the session, its store and its server are the caller's. */
    @Override
    public void close() {
        subscriber.close();
    }

    /** The subscriber's events, kept off the gateway's public face. */
    private final class Feed implements MoldUDP64Listener {
        @Override
        public void onMessage(final long sequence, final MemorySegment buffer, final long offset, final int length) {
            if (session.isEnded()) {
                ignoredAfterEnd++;
                return;
            }
            if (firstSequence == 0) {
                start(sequence);
            }
            if (sequence != store.nextSequence() || length > SoupBinTcpLayout.MAX_MESSAGE_LENGTH) {
                // the subscriber fails on it (nothing is skipped silently); never a message under another number
                throw new IllegalStateException("MoldUDP64 message " + sequence + " of " + length + " bytes cannot be"
                    + " served as SoupBinTCP message " + store.nextSequence() + " (at most "
                    + SoupBinTcpLayout.MAX_MESSAGE_LENGTH + " bytes)");
            }
            session.publish(buffer, offset, length);
        }

        @Override
        public void onStateChange(final MoldUDP64SubscriberState newState, final long nextExpected) {
            state = newState;
            if (newState == MoldUDP64SubscriberState.END_OF_SESSION && !session.isEnded()) {
                if (firstSequence == 0 && nextExpected > 1) {
                    start(nextExpected); // joined at the very end: the store holds nothing before it
                }
                session.end();
            }
        }

        @Override
        public void onUnrecoverable(final long fromSequence, final long count, final MoldUDP64GapReason reason) {
            failure = "MoldUDP64 messages " + fromSequence + " to " + (fromSequence + count - 1) + " cannot be recovered ("
                + reason + "); the session stops at " + store.nextSequence();
        }

        private void start(final long sequence) {
            if (store.nextSequence() == 1 && sequence > 1) {
                store.startAt(sequence);
            }
            firstSequence = store.firstSequence();
        }
    }
}
