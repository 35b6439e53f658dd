package dev.peregrine.soup;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.channel.SendResult;
import dev.peregrine.reactor.Pollable;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.tcp.TcpTransport;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;
import java.util.List;

/**
 * A SoupBinTCP 3.00 client that keeps its session across connections: every sequenced message is delivered
 * exactly once, in order, however often the connection is lost.
 *
 * <ul>
 *   <li>Login: the first asks for {@link SoupBinTcpClientOptions#session} (empty: the active one) from
 *       {@link SoupBinTcpClientOptions#fromSequence}; every later login asks for the session it was accepted into,
 *       from the next sequence number not yet delivered.</li>
 *   <li>Reconnect: after any loss, the next address of {@link SoupBinTcpClientOptions#addresses}; the first retry
 *       at once, later ones after the back-off with jitter ({@link SoupBinTcpClientOptions#backoff}). Reconnecting
 *       stops on End of Session, on {@link #logout()}, on Login Rejected {@code A}, and on Login Rejected {@code S}
 *       {@link SoupBinTcpClientOptions#maxSessionRejections} times in a row ({@link SoupBinTcpClientListener#onStopped} says why).</li>
 *   <li>Gaps: Login Accepted at a higher number than asked is reported by {@link SoupBinTcpClientListener#onGap};
 *       a lower one is served, and the repeats are skipped (counted, {@link #skippedRepeats()}).</li>
 *   <li>Unsequenced data is not kept across a loss: {@link #sendUnsequenced} answers
 *       {@link SendResult#NOT_CONNECTED} while logged out, and bytes unsent at a cut are counted
 *       ({@link #discardedBytes()}).</li>
 *   <li>Time: a Client Heartbeat after {@link SoupBinTcpClientOptions#heartbeatInterval} without sending; silence
 *       from the server for {@link SoupBinTcpClientOptions#receiveTimeout} is a lost connection. On the reactor's
 *       clock.</li>
 * </ul>
 * <p>A reconnect's socket is made ahead: on the duty cycle after a Login Accepted, the client opens and configures
 * the socket its next connect will use ({@link TcpTransport#prepareConnect()}), so that a reconnect skips that
 * cost. The client holds that one extra file descriptor while connected. A socket per reconnect is allocated;
 * nothing allocates per message. Not thread-safe: use it on the reactor's thread.
 */
public final class SoupBinTcpClient implements AutoCloseable {
    private static final int IDLE = 0;
    private static final int CONNECTING = 1;
    private static final int LOGGING_IN = 2;
    private static final int LOGGED_IN = 3;
    private static final int WAITING = 4;
    private static final int STOPPED = 5;

    private final Reactor reactor;
    private final SoupBinTcpClientOptions options;
    private final SoupBinTcpClientListener listener;
    private final TcpTransport transport;
    private final Pollable poller = this::doWork;
    private final List<SocketAddress> addresses;
    private int state = IDLE;
    private long channelId;
    private int addressIndex;
    /** Consecutive attempts since the last Login Accepted; the first retry is immediate. */
    private int failures;
    /** Consecutive Login Rejected 'S' since the last Login Accepted. */
    private int sessionRejections;
    private long reconnectAtNs;
    /** When the current connection attempt began: it keeps the reactor awake for a while (pendingSpin). */
    private long attemptNs;
    private String acceptedSession;
    /** The next sequence number not yet delivered; 0 until the first Login Accepted when starting live. */
    private long nextToDeliver;
    /** The number of the next Sequenced Data on this connection. */
    private long receiveSequence;
    private long lastReceivedNs;
    private long lastSentNs;
    private long discardedBytes;
    private long skippedRepeats;
    private long connects;
    /** Set by a Login Accepted: the next duty cycle makes the socket of the next reconnect, off its critical path. */
    private boolean spareWanted;
    private String closeDetail;
    private boolean stopAfterClose;
    private String stopReason;

    /**
     * Creates a client; it connects on {@link #start()}.
     *
     * @param reactor the reactor whose thread runs everything
     * @param options settings, with at least one address
     * @param listener receives the events
     */
    public SoupBinTcpClient(final Reactor reactor, final SoupBinTcpClientOptions options, final SoupBinTcpClientListener listener) {
        if (reactor == null || options == null || listener == null) {
            throw new IllegalArgumentException("reactor=" + reactor + " options=" + options + " listener=" + listener);
        }
        if (options.addresses().isEmpty()) {
            throw new IllegalArgumentException("addresses=[]: give at least one server address");
        }
        this.reactor = reactor;
        this.options = options;
        this.listener = listener;
        this.addresses = options.addresses();
        this.nextToDeliver = options.fromSequence();
        this.transport = new TcpTransport(reactor, options.tcp(), new Connection());
        reactor.add(poller);
    }

    /** Connects to the first address and logs in. */
    public void start() {
        if (state != IDLE) {
            throw new IllegalStateException("state=" + stateName() + ": start once");
        }
        connect();
    }

    /**
     * Sends Unsequenced Data; allocates nothing.
     *
     * @param buffer memory holding the message
     * @param offset where it starts
     * @param length its length, 0 to 65 534
     * @return bytes waiting in the outbound buffer, or {@link SendResult#NOT_CONNECTED} while not logged in,
     *     {@link SendResult#BACK_PRESSURED}, {@link SendResult#CLOSED}
     */
    public long sendUnsequenced(final MemorySegment buffer, final long offset, final int length) {
        if (length < 0 || length > SoupBinTcpLayout.MAX_MESSAGE_LENGTH) {
            throw new IllegalArgumentException("length=" + length + " must be in [0, 65534]");
        }
        if (state != LOGGED_IN) {
            return SendResult.NOT_CONNECTED;
        }
        final long claim = transport.tryClaim(channelId, length + 1);
        if (claim < 0) {
            return claim;
        }
        final MemorySegment out = transport.claimBuffer();
        out.set(ValueLayout.JAVA_BYTE, claim, SoupBinTcpLayout.UNSEQUENCED_DATA);
        MemorySegment.copy(buffer, offset, out, claim + 1, length);
        return sent(transport.commit());
    }

    /** Sends Logout Request and stops: no reconnect follows. Does nothing once stopped. */
    public void logout() {
        if (state == STOPPED) {
            return;
        }
        if (state == LOGGED_IN || state == LOGGING_IN) {
            sendEmpty(SoupBinTcpLayout.LOGOUT_REQUEST);
        }
        stop("logged out");
    }

    /**
     * Resets the connection, as a fault would; the client reconnects as after any loss. For tests and drills.
     */
    public void abortConnection() {
        if (state == CONNECTING || state == LOGGING_IN || state == LOGGED_IN) {
            closeDetail = "aborted by the application";
            transport.abort(channelId);
        }
    }

    /**
     * The next sequence number not yet delivered.
     *
     * @return it, or 0 before the first Login Accepted of a client that started live
     */
    public long nextSequence() {
        return nextToDeliver;
    }

    /**
     * The session the server accepted the client into.
     *
     * @return its name, or null before the first Login Accepted
     */
    public String session() {
        return acceptedSession;
    }

    /**
     * Whether the client is logged in now.
     *
     * @return true between Login Accepted and the loss of that connection
     */
    public boolean isLoggedIn() {
        return state == LOGGED_IN;
    }

    /**
     * Whether the client has stopped for good.
     *
     * @return true after End of Session, a logout, Login Rejected {@code A} or {@link #close()}
     */
    public boolean isStopped() {
        return state == STOPPED;
    }

    /**
     * Bytes sent but not yet written when a connection was cut, all connections together.
     *
     * @return the count
     */
    public long discardedBytes() {
        return discardedBytes;
    }

    /**
     * Sequenced Data skipped because it had been delivered already (a server that accepted a lower number).
     *
     * @return the count
     */
    public long skippedRepeats() {
        return skippedRepeats;
    }

    /**
     * Connection attempts made, the first included.
     *
     * @return the count
     */
    public long connects() {
        return connects;
    }

    /** The transport, for the tests of this package (its spare socket). */
    TcpTransport transport() {
        return transport;
    }

    /** Stops, resets the connection, and releases the transport. */
    @Override
    public void close() {
        if (state != STOPPED) {
            stop("closed by the application");
        }
        transport.close();
        reactor.remove(poller);
    }

    private int doWork(final long nowNs) {
        switch (state) {
            case WAITING -> {
                if (nowNs - reconnectAtNs >= 0) {
                    connect();
                    return 1;
                }
            }
            case CONNECTING -> {
                return young(nowNs);
            }
            case LOGGING_IN, LOGGED_IN -> {
                if (nowNs - lastReceivedNs >= options.receiveTimeoutNs()) {
                    closeDetail = "nothing received for " + options.receiveTimeoutNs() / 1_000_000 + " ms (receive timeout)";
                    transport.abort(channelId);
                    return 1;
                }
                if (nowNs - lastSentNs >= options.heartbeatIntervalNs()) {
                    sendEmpty(SoupBinTcpLayout.CLIENT_HEARTBEAT);
                    return 1;
                }
                if (state == LOGGING_IN) {
                    return young(nowNs);
                }
                if (spareWanted) {
                    spareWanted = false;
                    transport.prepareConnect();
                    return 1;
                }
            }
            default -> {
            }
        }
        return 0;
    }

    /**
     * 1 while the current attempt is younger than {@link SoupBinTcpClientOptions#pendingSpin}: counted as work, it
     * keeps a backing-off idle strategy from parking while the connect or the Login Accepted is on its way.
     */
    private int young(final long nowNs) {
        return nowNs - attemptNs < options.pendingSpinNs() ? 1 : 0;
    }

    private void connect() {
        state = CONNECTING;
        connects++;
        closeDetail = null;
        attemptNs = reactor.nowNs();
        final SocketAddress address = addresses.get(addressIndex);
        try {
            listener.onConnecting(address);
        } catch (final RuntimeException | Error ex) {
            reactor.errorHandler().onError(new IllegalStateException("SoupBinTCP client listener failed in onConnecting;"
                + " the client stops", ex));
            state = WAITING; // no attempt was made: stop without a connection to close
            stop("listener failed: " + ex);
            return;
        }
        channelId = transport.connect(address);
    }

    /** After a loss: the next address, at once for the first retry, then after the back-off with jitter. */
    private void scheduleReconnect() {
        state = WAITING;
        addressIndex = (addressIndex + 1) % addresses.size();
        reconnectAtNs = reactor.nowNs() + backoffNs(failures++);
    }

    private long backoffNs(final int failure) {
        if (failure == 0) {
            return 0;
        }
        final long base = Math.min(options.backoffMaxNs(), options.backoffInitialNs() << Math.min(failure - 1, 30));
        return (long)(base * (0.5 + 0.5 * options.random().nextDouble()));
    }

    private void stop(final String reason) {
        final int was = state;
        state = STOPPED;
        stopReason = reason;
        if (was == CONNECTING || was == LOGGING_IN || was == LOGGED_IN) {
            stopAfterClose = true;
            transport.close(channelId); // what is buffered (a Logout Request) goes first
        } else {
            notifyStopped();
        }
    }

    private void notifyStopped() {
        try {
            listener.onStopped(stopReason);
        } catch (final RuntimeException | Error ex) {
            reactor.errorHandler().onError(new IllegalStateException("SoupBinTCP client listener failed in onStopped", ex));
        }
    }

    private void login() {
        final long claim = transport.tryClaim(channelId, 1 + SoupBinTcpLayout.LOGIN_REQUEST_LENGTH);
        if (claim < 0) {
            closeDetail = "Login Request could not be sent: " + SendResult.describe(claim);
            transport.abort(channelId);
            return;
        }
        final MemorySegment out = transport.claimBuffer();
        out.set(ValueLayout.JAVA_BYTE, claim, SoupBinTcpLayout.LOGIN_REQUEST);
        SoupBinTcpLayout.putLeft(out, claim + 1 + SoupBinTcpLayout.LOGIN_USERNAME_OFFSET, SoupBinTcpLayout.USERNAME_LENGTH,
            options.username());
        SoupBinTcpLayout.putLeft(out, claim + 1 + SoupBinTcpLayout.LOGIN_PASSWORD_OFFSET, SoupBinTcpLayout.PASSWORD_LENGTH,
            options.password());
        SoupBinTcpLayout.putRight(out, claim + 1 + SoupBinTcpLayout.LOGIN_SESSION_OFFSET, SoupBinTcpLayout.SESSION_LENGTH,
            acceptedSession != null ? acceptedSession : options.session());
        SoupBinTcpLayout.putSequence(out, claim + 1 + SoupBinTcpLayout.LOGIN_SEQUENCE_OFFSET, nextToDeliver);
        state = LOGGING_IN;
        sent(transport.commit());
    }

    private void sendEmpty(final byte type) {
        final long claim = transport.tryClaim(channelId, 1);
        if (claim >= 0) {
            transport.claimBuffer().set(ValueLayout.JAVA_BYTE, claim, type);
            sent(transport.commit());
        }
    }

    private long sent(final long result) {
        if (result >= 0) {
            lastSentNs = reactor.nowNs();
        }
        return result;
    }

    private void onPacket(final MemorySegment buffer, final long offset, final int length) {
        lastReceivedNs = reactor.nowNs();
        if (length == 0) {
            fault("a packet of length 0 (no packet type)");
            return;
        }
        final byte type = buffer.get(ValueLayout.JAVA_BYTE, offset);
        if (type == SoupBinTcpLayout.SEQUENCED_DATA && state == LOGGED_IN) {
            final long sequence = receiveSequence++;
            if (sequence < nextToDeliver) {
                skippedRepeats++;
                return;
            }
            nextToDeliver = sequence + 1;
            listener.onSequencedData(sequence, buffer, offset + 1, length - 1);
            return;
        }
        switch (type) {
            case SoupBinTcpLayout.SERVER_HEARTBEAT, SoupBinTcpLayout.DEBUG -> {
            }
            case SoupBinTcpLayout.LOGIN_ACCEPTED -> accepted(buffer, offset + 1, length - 1);
            case SoupBinTcpLayout.LOGIN_REJECTED -> rejected(buffer, offset + 1, length - 1);
            case SoupBinTcpLayout.END_OF_SESSION -> {
                if (state != LOGGED_IN) {
                    fault("End of Session before Login Accepted");
                    return;
                }
                listener.onEndOfSession();
                logout();
            }
            default -> fault((state == LOGGED_IN ? "" : "before Login Accepted: ") + "unexpected packet type "
                + SoupBinTcpLayout.typeName(type) + " from the server");
        }
    }

    private void accepted(final MemorySegment buffer, final long offset, final int length) {
        if (state != LOGGING_IN) {
            fault("Login Accepted when not logging in");
            return;
        }
        final long sequence = length == SoupBinTcpLayout.LOGIN_ACCEPTED_LENGTH
            ? SoupBinTcpLayout.parseSequence(buffer, offset + SoupBinTcpLayout.ACCEPTED_SEQUENCE_OFFSET) : -1;
        final String sessionFault = length == SoupBinTcpLayout.LOGIN_ACCEPTED_LENGTH
            ? SoupBinTcpLayout.rightJustifiedFault(buffer, offset + SoupBinTcpLayout.ACCEPTED_SESSION_OFFSET,
                SoupBinTcpLayout.SESSION_LENGTH) : "payload of " + length + " bytes, not 30";
        if (sessionFault != null || sequence < 1) {
            fault("malformed Login Accepted: " + (sessionFault != null ? sessionFault : "sequence number not 1 or more"));
            return;
        }
        acceptedSession = SoupBinTcpLayout.text(buffer, offset + SoupBinTcpLayout.ACCEPTED_SESSION_OFFSET,
            SoupBinTcpLayout.SESSION_LENGTH);
        state = LOGGED_IN;
        spareWanted = true;
        failures = 0;
        sessionRejections = 0;
        receiveSequence = sequence;
        listener.onLoginAccepted(acceptedSession, sequence);
        if (nextToDeliver == 0) {
            nextToDeliver = sequence;
        } else if (sequence > nextToDeliver) {
            final long expected = nextToDeliver;
            nextToDeliver = sequence;
            listener.onGap(expected, sequence);
        }
    }

    private void rejected(final MemorySegment buffer, final long offset, final int length) {
        if (state != LOGGING_IN || length != 1) {
            fault("unexpected Login Rejected");
            return;
        }
        final byte code = buffer.get(ValueLayout.JAVA_BYTE, offset);
        listener.onLoginRejected(code);
        if (code == SoupBinTcpLayout.REJECT_NOT_AUTHORIZED) {
            stop("Login Rejected 'A' (not authorized)");
        } else if (++sessionRejections >= options.maxSessionRejections()) {
            stop("Login Rejected " + SoupBinTcpLayout.typeName(code) + " (session not available) " + sessionRejections
                + " times in a row, the limit (maxSessionRejections): session '"
                + (acceptedSession != null ? acceptedSession : options.session()) + "' from sequence " + nextToDeliver
                + " is not served");
        } else {
            closeDetail = "Login Rejected " + SoupBinTcpLayout.typeName(code);
            transport.abort(channelId);
        }
    }

    private void fault(final String detail) {
        closeDetail = "protocol fault: " + detail;
        transport.abort(channelId);
    }

    /** The unsent bytes a close discarded, as the transport's close detail ends: "; N unsent bytes discarded". */
    static long discardedIn(final String detail) {
        final String suffix = " unsent bytes discarded";
        if (detail == null || !detail.endsWith(suffix)) {
            return 0;
        }
        final int start = detail.lastIndexOf("; ", detail.length() - suffix.length());
        try {
            return start < 0 ? 0 : Long.parseLong(detail.substring(start + 2, detail.length() - suffix.length()));
        } catch (final NumberFormatException ex) {
            return 0;
        }
    }

    private String stateName() {
        return switch (state) {
            case IDLE -> "IDLE";
            case CONNECTING -> "CONNECTING";
            case LOGGING_IN -> "LOGGING_IN";
            case LOGGED_IN -> "LOGGED_IN";
            case WAITING -> "WAITING";
            default -> "STOPPED";
        };
    }

    /** The transport's events for the one connection there is at a time. */
    private final class Connection implements ChannelHandler {
        @Override
        public void onConnected(final long id, final SocketAddress remoteAddress) {
            if (id != channelId || state != CONNECTING) {
                return;
            }
            lastReceivedNs = reactor.nowNs();
            try {
                listener.onConnected(remoteAddress);
            } catch (final RuntimeException | Error ex) {
                listenerFailed("onConnected", ex);
                return;
            }
            login();
        }

        @Override
        public void onConnectFailed(final long id, final String reason) {
            if (id == channelId && state == CONNECTING) {
                lost("connect failed: " + reason);
            }
        }

        @Override
        public void onMessage(final long id, final MemorySegment buffer, final long offset, final int length) {
            if (id != channelId || (state != LOGGING_IN && state != LOGGED_IN)) {
                return;
            }
            try {
                onPacket(buffer, offset, length);
            } catch (final RuntimeException | Error ex) {
                listenerFailed("a packet's event", ex);
            }
        }

        /** A listener threw on a connection's event: the client stops, and the connection is reset. */
        private void listenerFailed(final String where, final Throwable ex) {
            reactor.errorHandler().onError(new IllegalStateException("SoupBinTCP client listener failed in " + where
                + "; the client stops", ex));
            state = STOPPED;
            stopReason = "listener failed: " + ex;
            stopAfterClose = true;
            transport.abort(channelId);
        }

        @Override
        public void onClosed(final long id, final CloseReason reason, final String detail) {
            if (id != channelId) {
                return;
            }
            discardedBytes += discardedIn(detail);
            if (stopAfterClose) {
                stopAfterClose = false;
                notifyStopped();
                return;
            }
            if (state == STOPPED) {
                return;
            }
            lost(closeDetail != null ? closeDetail : reason + " " + detail);
        }

        private void lost(final String reason) {
            scheduleReconnect();
            try {
                listener.onConnectionLost(reason);
            } catch (final RuntimeException | Error ex) {
                reactor.errorHandler().onError(new IllegalStateException("SoupBinTCP client listener failed in"
                    + " onConnectionLost; the client stops", ex));
                stop("listener failed: " + ex);
            }
        }
    }
}
