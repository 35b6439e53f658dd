package dev.peregrine.soup;

import dev.peregrine.channel.CloseReason;

/** What the server knows of one connection: its login state, its place in the session, its clocks. */
final class SoupServerConnection {
    static final int AWAITING_LOGIN = 0;
    static final int LOGGED_IN = 1;
    static final int CLOSING = 2;

    final long channelId;
    int state = AWAITING_LOGIN;
    SoupBinTcpSession session;
    /** The sequence number of the next Sequenced Data to send. */
    long nextSequence;
    /** Whether the outbound buffer refused a packet; cleared when the transport reports progress. */
    boolean backPressured;
    boolean endOfSessionSent;
    /**
     * Whether it is replaying (behind the store after its last serve): served after the caught-up clients in a duty
     * cycle, from the cycle's replay budget; cleared once it has caught up.
     */
    private boolean replaying;
    /** Its index in its session's list of clients that are not replaying, or -1 when not listed there. */
    int liveIndex = -1;
    final long connectedNs;
    long lastReceivedNs;
    long lastSentNs;
    /** The server's own reason for closing it, or null when the transport or the peer closed it. */
    CloseReason closeReason;
    /** Which {@code reason=} close counter the server's own close counts in. */
    int closeKind;
    String closeDetail;

    boolean replaying() {
        return replaying;
    }

    /**
     * Marks it replaying or not, and keeps its session's list of the clients that are not (those a publish serves)
     * in step.
     */
    void replaying(final boolean behind) {
        replaying = behind;
        if (session != null) {
            session.replayingChanged(this);
        }
    }

    SoupServerConnection(final long channelId, final long nowNs) {
        this.channelId = channelId;
        this.connectedNs = nowNs;
        this.lastReceivedNs = nowNs;
        this.lastSentNs = nowNs;
    }
}
