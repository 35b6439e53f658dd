package dev.peregrine.soup;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.CloseReason;
import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.reactor.Pollable;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.tcp.TcpTransport;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import static dev.peregrine.soup.SoupBinTcpServerCounters.CLOSED_FELL_BEHIND;
import static dev.peregrine.soup.SoupBinTcpServerCounters.CLOSED_LOGOUT;
import static dev.peregrine.soup.SoupBinTcpServerCounters.CLOSED_PROTOCOL_ERROR;
import static dev.peregrine.soup.SoupBinTcpServerCounters.CLOSED_REJECTED;
import static dev.peregrine.soup.SoupBinTcpServerCounters.CLOSED_TIMEOUT;

/**
 * A SoupBinTCP 3.00 server: many clients on one reactor, each logged into a {@link SoupBinTcpSession} that a
 * {@link SoupAuthenticator} picks, and served its session's sequenced messages from the requested number on.
 *
 * <ul>
 *   <li>Login: a Login Request must come within {@link SoupBinTcpServerOptions#loginTimeout}; it is parsed
 *       strictly (padding on its side only, digits only in the number). A requested sequence number older than
 *       the store holds, or past the next one to be published, is refused with Login Rejected {@code S}: a
 *       client that has seen more than this server holds (failover to a server that lags) must not be told
 *       that messages it has were never sent, nor skip any; it can try another server. {@code 0} starts with
 *       the next message published.</li>
 *   <li>Serving: the replay comes from the store as fast as the client's socket takes it (at most
 *       {@link SoupBinTcpServerOptions#replayBurst} messages a duty cycle, paused while the connection's outbound
 *       buffer is full), then the live stream. In a duty cycle the caught-up clients are served first, then the
 *       replaying ones in turn until the cycle's {@link SoupBinTcpServerOptions#replayCycleBytes} are spent, so a
 *       cycle's replay work is bounded however many clients replay; a client that is caught up gets each message inside
 *       {@link SoupBinTcpSession#publish}, and its bytes leave first in the cycle's end-of-cycle write
 *       ({@link TcpTransport#writeFirst}), ahead of the replays served earlier in the cycle. Messages go out in runs, one claim of the outbound buffer for
 *       many packets. A client so slow that the store forgets what it still needs is closed with the reason.</li>
 *   <li>Faults: a second login, data before login, an unknown type, a packet of length 0 or longer than
 *       {@link SoupBinTcpServerOptions#maxPacketLength}, a malformed login, a handler that throws: that
 *       connection is closed with {@link CloseReason#ERROR} and the reason, and counted
 *       ({@link #protocolErrors()}); the others go on, and the store is never touched.</li>
 *   <li>Time: a Server Heartbeat after {@link SoupBinTcpServerOptions#heartbeatInterval} without sending; a
 *       connection silent for {@link SoupBinTcpServerOptions#receiveTimeout} is closed. All on the reactor's
 *       clock ({@link dev.peregrine.reactor.ReactorOptions#clock}), so a test can drive it.</li>
 *   <li>Counters: in the reactor's counters file ({@link Reactor#counters()}, what {@code ./peregrine stat} shows),
 *       labelled {@code soup-server-N}: logins accepted, rejected by code, connections closed by reason, sequenced
 *       messages sent live and from the store, unsequenced received, heartbeats both ways, timeouts by kind, and the
 *       clients logged in. Freed by {@link #close()} or with the reactor.</li>
 * </ul>
 * Nothing allocates in steady state (live, replay, heartbeats). Not thread-safe: use it on the reactor's thread.
 */
public final class SoupBinTcpServer implements AutoCloseable {
    private final Reactor reactor;
    private final SoupBinTcpServerOptions options;
    private final SoupAuthenticator authenticator;
    private final SoupBinTcpServerHandler handler;
    private final TcpTransport transport;
    private final Pollable poller = this::doWork;
    private final Map<String, SoupBinTcpSession> sessions = new HashMap<>();
    /** Connections by the slot of their channel id (its low 30 bits, see TcpTransport's ids). */
    private final SoupServerConnection[] bySlot;
    private final int slotMask;
    private SoupServerConnection[] active = new SoupServerConnection[16];
    private int activeCount;
    private final long timerScanIntervalNs;
    /**
     * The longest run of packets served with one claim: a quarter of the outbound buffer, so that a run rarely waits
     * for room while the half-full buffer is being written.
     */
    private final int maxRunBytes;
    /** What the replay pass of this duty cycle may still send; unbounded outside it (live sends, logins). */
    private long replayBytesLeft = Long.MAX_VALUE;
    /** Where the next replay pass starts in {@link #active}: after the last client the previous one served. */
    private int replayCursor;
    private long nextTimerScanNs;
    private long serverId;
    private String listenFailure;
    private long protocolErrors;
    private final SoupBinTcpServerCounters counters;
    private final Runnable releaseCounters;
    private boolean closed;

    /**
     * Creates a server; it accepts once {@link #listen} is called.
     *
     * @param reactor the reactor whose thread runs everything
     * @param options settings
     * @param authenticator decides logins
     * @param handler receives unsequenced data and connection events
     */
    public SoupBinTcpServer(final Reactor reactor, final SoupBinTcpServerOptions options,
        final SoupAuthenticator authenticator, final SoupBinTcpServerHandler handler) {
        if (reactor == null || options == null || authenticator == null || handler == null) {
            throw new IllegalArgumentException("reactor=" + reactor + " options=" + options + " authenticator="
                + authenticator + " handler=" + handler);
        }
        this.reactor = reactor;
        this.options = options;
        this.authenticator = authenticator;
        this.handler = handler;
        this.transport = new TcpTransport(reactor, options.tcp(), new Channels());
        final int slots = Integer.highestOneBit(Math.max(1, options.tcp().maxConnections() - 1)) << 1;
        this.bySlot = new SoupServerConnection[slots];
        this.slotMask = slots - 1;
        this.timerScanIntervalNs = Math.max(1, Math.min(options.heartbeatIntervalNs(),
            Math.min(options.loginTimeoutNs(), options.receiveTimeoutNs())) / 10);
        this.nextTimerScanNs = reactor.nowNs();
        this.maxRunBytes = Math.max(1, options.tcp().outboundBufferSize() / 4);
        this.counters = new SoupBinTcpServerCounters(reactor.counters());
        this.releaseCounters = counters::close;
        reactor.addReleaseHook(releaseCounters); // a reactor closed first still gets the slots back
        reactor.add(poller);
    }

    /**
     * Adds a session served from a store.
     *
     * @param name 1 to 10 letters and digits, unique on this server
     * @param store the store; the server reads it, and {@link SoupBinTcpSession#publish} appends to it
     * @return the session
     */
    public SoupBinTcpSession addSession(final String name, final MoldUDP64MessageStore store) {
        if (name == null || name.isEmpty() || name.length() > SoupBinTcpLayout.SESSION_LENGTH
            || !name.chars().allMatch(c -> c < 0x80 && Character.isLetterOrDigit(c))) {
            throw new IllegalArgumentException("name=" + name + " must be 1 to 10 letters and digits");
        }
        if (store == null) {
            throw new IllegalArgumentException("store=null");
        }
        if (sessions.containsKey(name)) {
            throw new IllegalStateException("name=" + name + " is already a session of this server");
        }
        final SoupBinTcpSession session = new SoupBinTcpSession(this, name, store);
        sessions.put(name, session);
        return session;
    }

    /**
     * A session added by {@link #addSession}, for an authenticator to look up.
     *
     * @param name its name
     * @return the session, or null
     */
    public SoupBinTcpSession session(final String name) {
        return sessions.get(name);
    }

    /**
     * Starts accepting on an address; the bound address is {@link #localAddress()} from the next duty cycle on.
     *
     * @param address where to listen, port 0 for any
     * @return the server's channel id
     */
    public long listen(final SocketAddress address) {
        checkOpen();
        serverId = transport.listen(address);
        return serverId;
    }

    /**
     * The bound address.
     *
     * @return the address, or null before the server is listening
     */
    public SocketAddress localAddress() {
        return serverId == 0 ? null : transport.localAddress(serverId);
    }

    /**
     * Why {@link #listen} failed (the address is in use, say), reported on a duty cycle after it.
     *
     * @return the reason, naming the address, or null
     */
    public String listenFailure() {
        return listenFailure;
    }

    /**
     * Closes one client's connection, gracefully (what is buffered is written first).
     *
     * @param channelId the connection
     */
    public void disconnect(final long channelId) {
        transport.close(channelId);
    }

    /**
     * Resets one client's connection at once, discarding what is buffered (as a crash would).
     *
     * @param channelId the connection
     */
    public void abort(final long channelId) {
        transport.abort(channelId);
    }

    /**
     * Bytes of a connection handed to its socket so far ({@link TcpTransport#bytesWritten}).
     *
     * @param channelId the connection
     * @return the count, or a negative {@link dev.peregrine.channel.SendResult} code for an unknown id
     */
    public long bytesWritten(final long channelId) {
        return transport.bytesWritten(channelId);
    }

    /**
     * Bytes of a connection waiting in its outbound buffer ({@link TcpTransport#pendingBytes}).
     *
     * @param channelId the connection
     * @return the count, or a negative {@link dev.peregrine.channel.SendResult} code for an unknown id
     */
    public long pendingBytes(final long channelId) {
        return transport.pendingBytes(channelId);
    }

    /**
     * Connections closed for a protocol fault (bad packet, bad login, data before login, a handler failure).
     *
     * @return the count
     */
    public long protocolErrors() {
        return protocolErrors;
    }

    /**
     * Connections closed for silence: no login in time, or nothing received within the receive timeout.
     *
     * @return the count
     */
    public long timeouts() {
        return counters.loginTimeouts.get() + counters.receiveTimeouts.get();
    }

    /**
     * Logins answered with Login Rejected.
     *
     * @return the count
     */
    public long rejectedLogins() {
        return counters.rejectedNotAuthorized.get() + counters.rejectedSessionNotAvailable.get();
    }

    /**
     * Logins answered with Login Accepted.
     *
     * @return the count
     */
    public long acceptedLogins() {
        return counters.loginsAccepted.get();
    }

    /**
     * Connections open now, logged in or not.
     *
     * @return the count
     */
    public int connectionCount() {
        return activeCount;
    }

    /**
     * Closes every connection and the listening socket, and frees the server's slots in the counters file; the stores
     * stay open (they are the caller's).
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        transport.close();
        reactor.remove(poller);
        reactor.removeReleaseHook(releaseCounters);
        counters.close();
    }

    private int doWork(final long nowNs) {
        int work = 0;
        final int burst = options.replayBurst();
        // caught-up clients first: their runs are claimed, so written by the end-of-cycle flush, before any replay's
        for (int i = 0; i < activeCount; i++) {
            final SoupServerConnection client = active[i];
            if (!client.replaying() && client.state == SoupServerConnection.LOGGED_IN && !client.backPressured
                && behind(client)) {
                work += serve(client, burst, false);
                client.replaying(client.state == SoupServerConnection.LOGGED_IN && behind(client));
            }
        }
        work += replayPass(burst);
        if (nowNs - nextTimerScanNs >= 0) {
            nextTimerScanNs = nowNs + timerScanIntervalNs;
            work += scanTimers(nowNs);
        }
        return work;
    }

    /**
     * Serves the replaying clients, in turn from where the last cycle's pass stopped, until the cycle's
     * {@link SoupBinTcpServerOptions#replayCycleBytes} are spent: a cycle's replay work is bounded, and shared.
     */
    private int replayPass(final int burst) {
        final int count = activeCount;
        int work = 0;
        int next = replayCursor < count ? replayCursor : 0;
        replayBytesLeft = options.replayCycleBytes();
        try {
            for (int k = 0, i = next; k < count && replayBytesLeft > 0; k++, i = i + 1 == count ? 0 : i + 1) {
                final SoupServerConnection client = i < activeCount ? active[i] : null; // a close shrinks the list
                if (client == null || !client.replaying() || client.state != SoupServerConnection.LOGGED_IN) {
                    continue;
                }
                if (!behind(client)) {
                    client.replaying(false); // caught up (by a flush of the live stream, say)
                } else if (!client.backPressured) {
                    work += serve(client, burst, false);
                    client.replaying(client.state == SoupServerConnection.LOGGED_IN && behind(client));
                    next = i + 1;
                }
            }
        } finally {
            replayBytesLeft = Long.MAX_VALUE;
        }
        replayCursor = next;
        return work;
    }

    private static boolean behind(final SoupServerConnection client) {
        final SoupBinTcpSession session = client.session;
        return client.nextSequence < session.store().nextSequence() || session.isEnded() && !client.endOfSessionSent;
    }

    /**
     * Sends a client up to {@code limit} messages from the store, in runs of one claim each, then End of Session if the session ended and the
     * client has everything. Stops when the outbound buffer is full; progress clears that.
     *
     * @param live whether this is the publish of the message (counted live), else a send from the store (replayed)
     * @return messages (and End of Session) sent
     */
    int serve(final SoupServerConnection client, final int limit, final boolean live) {
        final MoldUDP64MessageStore store = client.session.store();
        int sent = 0;
        boolean stopped = false;
        while (sent < limit && client.nextSequence < store.nextSequence() && replayBytesLeft > 0) {
            final int run = serveRun(client, store, limit - sent);
            if (run == 0) {
                stopped = true;
                break;
            }
            sent += run;
        }
        if (sent > 0) {
            if (live) {
                counters.sequencedLive.add(sent);
                // a caught-up client's bytes leave before the replays' in the end-of-cycle write, still one write
                transport.writeFirst(client.channelId);
            } else {
                counters.sequencedReplayed.add(sent);
            }
        }
        if (!stopped && client.session.isEnded() && !client.endOfSessionSent
            && client.nextSequence == store.nextSequence()) {
            if (sendEmpty(client, SoupBinTcpLayout.END_OF_SESSION)) {
                client.endOfSessionSent = true;
                sent++;
            } else {
                client.backPressured = true;
            }
        }
        return sent;
    }

    /**
     * Sends the client a run of its next messages from the store: the store keeps them as SoupBinTCP packets, so
     * the run is one range of its bytes ({@link MoldUDP64MessageStore#packetRun}), copied whole into one claim of the
     * outbound buffer ({@link TcpTransport#tryClaimFramed}), at most {@link #maxRunBytes} unless one message alone is
     * longer. The store checks every length of the run before a byte is claimed or copied.
     *
     * @return the messages sent, 0 if none (back-pressure, the client fell behind the store, a message too long for
     *     Sequenced Data, or the connection closed under the write)
     */
    private int serveRun(final SoupServerConnection client, final MoldUDP64MessageStore store, final int limit) {
        final long first = client.nextSequence;
        final int count = store.packetRun(first, limit, Math.min(maxRunBytes, replayBytesLeft));
        if (count <= 0) {
            refuse(client, store, first, store.messageLength(first));
            return 0;
        }
        final int bytes = store.runBytes();
        final long claim = transport.tryClaimFramed(client.channelId, bytes, count);
        if (claim < 0) {
            client.backPressured = true; // BACK_PRESSURED; or the channel is closing, and onClosed follows
            return 0;
        }
        MemorySegment.copy(store.ring(), store.runOffset(), transport.claimBuffer(), claim, bytes);
        client.nextSequence = first + count;
        replayBytesLeft -= bytes;
        if (transport.commit() < 0) {
            return 0; // closed under the write: onClosed has been or will be delivered
        }
        client.lastSentNs = reactor.nowNs();
        return count;
    }

    /** The client's next message cannot be served: it fell behind the store, or the message is too long for it. */
    private void refuse(final SoupServerConnection client, final MoldUDP64MessageStore store, final long sequence,
        final int length) {
        if (length < 0) {
            fail(client, CLOSED_FELL_BEHIND, CloseReason.ERROR, "fell behind the store: next sequence " + sequence
                + " is older than the oldest kept, " + store.firstSequence());
        } else {
            protocolFault(client, "message " + sequence + " of " + length + " bytes does not fit a Sequenced Data packet");
        }
    }

    private int scanTimers(final long nowNs) {
        int work = 0;
        for (int i = activeCount - 1; i >= 0; i--) { // from the end: a close swaps the last one into i
            final SoupServerConnection client = active[i];
            if (client.state == SoupServerConnection.CLOSING) {
                continue;
            }
            if (client.state == SoupServerConnection.AWAITING_LOGIN && nowNs - client.connectedNs >= options.loginTimeoutNs()) {
                counters.loginTimeouts.increment();
                close(client, CLOSED_TIMEOUT, CloseReason.ERROR, "no Login Request within "
                    + options.loginTimeoutNs() / 1_000_000 + " ms");
                work++;
            } else if (nowNs - client.lastReceivedNs >= options.receiveTimeoutNs()) {
                counters.receiveTimeouts.increment();
                close(client, CLOSED_TIMEOUT, CloseReason.ERROR, "nothing received for "
                    + options.receiveTimeoutNs() / 1_000_000
                    + " ms (receive timeout)");
                work++;
            } else if (client.state == SoupServerConnection.LOGGED_IN
                && client.nextSequence < client.session.store().firstSequence()) {
                // found here too, not only when its socket drains: a client that reads nothing holds its buffer
                fail(client, CLOSED_FELL_BEHIND, CloseReason.ERROR, "fell behind the store: next sequence "
                    + client.nextSequence
                    + " is older than the oldest kept, " + client.session.store().firstSequence());
                work++;
            } else if (client.state == SoupServerConnection.LOGGED_IN
                && nowNs - client.lastSentNs >= options.heartbeatIntervalNs()) {
                if (sendEmpty(client, SoupBinTcpLayout.SERVER_HEARTBEAT)) {
                    counters.heartbeatsSent.increment();
                    work++;
                }
            }
        }
        return work;
    }

    private boolean sendEmpty(final SoupServerConnection client, final byte type) {
        final long offset = transport.tryClaim(client.channelId, 1);
        if (offset < 0) {
            return false;
        }
        transport.claimBuffer().set(ValueLayout.JAVA_BYTE, offset, type);
        if (transport.commit() < 0) {
            return false;
        }
        client.lastSentNs = reactor.nowNs();
        return true;
    }

    private void onPacket(final SoupServerConnection client, final MemorySegment buffer, final long offset, final int length) {
        client.lastReceivedNs = reactor.nowNs();
        if (length == 0) {
            protocolFault(client, "a packet of length 0 (no packet type)");
            return;
        }
        final byte type = buffer.get(ValueLayout.JAVA_BYTE, offset);
        switch (type) {
            case SoupBinTcpLayout.UNSEQUENCED_DATA -> {
                if (client.state != SoupServerConnection.LOGGED_IN) {
                    protocolFault(client, "Unsequenced Data before login");
                    return;
                }
                counters.unsequencedReceived.increment();
                try {
                    handler.onUnsequencedData(client.channelId, client.session, buffer, offset + 1, length - 1);
                } catch (final RuntimeException | Error ex) { // this connection only; the loop goes on
                    reactor.errorHandler().onError(new IllegalStateException("SoupBinTCP handler failed on channel "
                        + client.channelId + "; the channel is closed", ex));
                    protocolFault(client, "handler failed: " + ex);
                }
            }
            case SoupBinTcpLayout.CLIENT_HEARTBEAT -> counters.heartbeatsReceived.increment(); // and lastReceivedNs above
            case SoupBinTcpLayout.DEBUG -> {
                // debug text may be ignored (spec)
            }
            case SoupBinTcpLayout.LOGIN_REQUEST -> login(client, buffer, offset + 1, length - 1);
            case SoupBinTcpLayout.LOGOUT_REQUEST -> close(client, CLOSED_LOGOUT, CloseReason.LOCAL,
                "Logout Request");
            default -> protocolFault(client, "unknown packet type " + SoupBinTcpLayout.typeName(type)
                + " from a client");
        }
    }

    private void login(final SoupServerConnection client, final MemorySegment buffer, final long offset, final int length) {
        if (client.state != SoupServerConnection.AWAITING_LOGIN) {
            protocolFault(client, "a second Login Request on one connection");
            return;
        }
        final String fault = SoupLoginRequest.fault(buffer, offset, length);
        if (fault != null) {
            protocolFault(client, "malformed Login Request: " + fault);
            return;
        }
        final String username = SoupBinTcpLayout.text(buffer, offset + SoupBinTcpLayout.LOGIN_USERNAME_OFFSET,
            SoupBinTcpLayout.USERNAME_LENGTH);
        final String password = SoupBinTcpLayout.text(buffer, offset + SoupBinTcpLayout.LOGIN_PASSWORD_OFFSET,
            SoupBinTcpLayout.PASSWORD_LENGTH);
        final String requested = SoupBinTcpLayout.text(buffer, offset + SoupBinTcpLayout.LOGIN_SESSION_OFFSET,
            SoupBinTcpLayout.SESSION_LENGTH);
        final long sequence = SoupBinTcpLayout.parseSequence(buffer, offset + SoupBinTcpLayout.LOGIN_SEQUENCE_OFFSET);
        final SoupLoginDecision decision;
        try {
            decision = authenticator.authenticate(username, password, requested);
        } catch (final RuntimeException | Error ex) {
            reactor.errorHandler().onError(new IllegalStateException("SoupBinTCP authenticator failed on channel "
                + client.channelId + "; the channel is closed", ex));
            protocolFault(client, "authenticator failed: " + ex);
            return;
        }
        if (decision == null || decision.session() != null && decision.session().server() != this) {
            protocolFault(client, "authenticator answered " + decision + ", not a decision with a session of"
                + " this server");
            return;
        }
        if (decision.session() == null) {
            reject(client, decision.rejectCode(), "login of user '" + username + "' to session '" + requested
                + "' rejected by the authenticator");
            return;
        }
        final SoupBinTcpSession session = decision.session();
        final MoldUDP64MessageStore store = session.store();
        if (sequence != 0 && (sequence < store.firstSequence() || sequence > store.nextSequence())) {
            reject(client, SoupBinTcpLayout.REJECT_SESSION_NOT_AVAILABLE, "login of user '" + username
                + "': requested sequence " + sequence + " is outside what session " + session.name()
                + " can serve, [" + store.firstSequence() + ", " + store.nextSequence() + "]");
            return;
        }
        final long next = sequence == 0 ? store.nextSequence() : sequence;
        final long claim = transport.tryClaim(client.channelId, 1 + SoupBinTcpLayout.LOGIN_ACCEPTED_LENGTH);
        if (claim < 0) {
            protocolFault(client, "Login Accepted could not be sent: " + claim);
            return;
        }
        final MemorySegment out = transport.claimBuffer();
        out.set(ValueLayout.JAVA_BYTE, claim, SoupBinTcpLayout.LOGIN_ACCEPTED);
        SoupBinTcpLayout.putRight(out, claim + 1 + SoupBinTcpLayout.ACCEPTED_SESSION_OFFSET,
            SoupBinTcpLayout.SESSION_LENGTH, session.name());
        SoupBinTcpLayout.putSequence(out, claim + 1 + SoupBinTcpLayout.ACCEPTED_SEQUENCE_OFFSET, next);
        if (transport.commit() < 0) {
            return;
        }
        client.lastSentNs = reactor.nowNs();
        client.state = SoupServerConnection.LOGGED_IN;
        client.session = session;
        client.nextSequence = next;
        session.add(client);
        counters.clients.increment();
        counters.loginsAccepted.increment();
        try {
            handler.onLoggedIn(client.channelId, session, username, next);
        } catch (final RuntimeException | Error ex) {
            reactor.errorHandler().onError(new IllegalStateException("SoupBinTCP handler failed on channel "
                + client.channelId + "; the channel is closed", ex));
            protocolFault(client, "handler failed: " + ex);
            return;
        }
        serve(client, options.replayBurst(), false);
        client.replaying(client.state == SoupServerConnection.LOGGED_IN && behind(client));
    }

    private void reject(final SoupServerConnection client, final byte code, final String detail) {
        (code == SoupBinTcpLayout.REJECT_NOT_AUTHORIZED ? counters.rejectedNotAuthorized
            : counters.rejectedSessionNotAvailable).increment();
        final long claim = transport.tryClaim(client.channelId, 2);
        if (claim >= 0) {
            transport.claimBuffer().set(ValueLayout.JAVA_BYTE, claim, SoupBinTcpLayout.LOGIN_REJECTED);
            transport.claimBuffer().set(ValueLayout.JAVA_BYTE, claim + 1, code);
            transport.commit();
        }
        close(client, CLOSED_REJECTED, CloseReason.LOCAL, "Login Rejected " + (code == SoupBinTcpLayout.REJECT_NOT_AUTHORIZED
            ? "'A' (not authorized): " : "'S' (session not available): ") + detail);
    }

    private void protocolFault(final SoupServerConnection client, final String detail) {
        fail(client, CLOSED_PROTOCOL_ERROR, CloseReason.ERROR, detail);
    }

    private void fail(final SoupServerConnection client, final int closeKind, final CloseReason reason, final String detail) {
        protocolErrors++;
        close(client, closeKind, reason, detail);
    }

    private void close(final SoupServerConnection client, final int closeKind, final CloseReason reason,
        final String detail) {
        if (client.state == SoupServerConnection.CLOSING) {
            return;
        }
        leaveSession(client);
        client.state = SoupServerConnection.CLOSING;
        client.closeKind = closeKind;
        client.closeReason = reason;
        client.closeDetail = detail;
        transport.close(client.channelId); // onClosed may come inside this call
    }

    private void leaveSession(final SoupServerConnection client) {
        if (client.session != null && client.session.remove(client)) {
            counters.clients.add(-1);
        }
    }

    private SoupServerConnection find(final long channelId) {
        final SoupServerConnection client = bySlot[(int)channelId & slotMask];
        return client != null && client.channelId == channelId ? client : null;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("server is closed");
        }
    }

    /** The transport's events, kept off the server's public face. */
    private final class Channels implements ChannelHandler {
        @Override
        public void onListenFailed(final long id, final String reason) {
            listenFailure = reason;
        }

        @Override
        public void onAccepted(final long serverChannelId, final long channelId, final SocketAddress remoteAddress) {
            final SoupServerConnection client = new SoupServerConnection(channelId, reactor.nowNs());
            bySlot[(int)channelId & slotMask] = client;
            if (activeCount == active.length) {
                active = Arrays.copyOf(active, activeCount * 2);
            }
            active[activeCount++] = client;
        }

        @Override
        public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
            final SoupServerConnection client = find(channelId);
            if (client != null && client.state != SoupServerConnection.CLOSING) {
                onPacket(client, buffer, offset, length);
            }
        }

        @Override
        public void onSent(final long channelId, final long bytesWritten, final long bytesBuffered) {
            final SoupServerConnection client = find(channelId);
            if (client != null && client.backPressured) {
                client.backPressured = false;
                if (client.state == SoupServerConnection.LOGGED_IN && !client.replaying()) {
                    serve(client, options.replayBurst(), false); // a replaying one waits for the budgeted pass
                }
            }
        }

        @Override
        public void onClosed(final long channelId, final CloseReason reason, final String detail) {
            final SoupServerConnection client = find(channelId);
            if (client == null) {
                return; // the listening socket
            }
            bySlot[(int)channelId & slotMask] = null;
            for (int i = 0; i < activeCount; i++) {
                if (active[i] == client) {
                    active[i] = active[--activeCount];
                    active[activeCount] = null;
                    break;
                }
            }
            leaveSession(client);
            final boolean ours = client.closeReason != null;
            if (!ours && reason == CloseReason.ERROR) {
                protocolErrors++; // the transport's own: a packet over the maximum
            }
            counters.closed(ours ? client.closeKind : SoupBinTcpServerCounters.closedBy(reason)).increment();
            client.state = SoupServerConnection.CLOSING;
            try {
                handler.onClosed(channelId, ours ? client.closeReason : reason, ours ? client.closeDetail : detail);
            } catch (final RuntimeException | Error ex) {
                reactor.errorHandler().onError(new IllegalStateException("SoupBinTCP handler failed in onClosed of"
                    + " channel " + channelId, ex));
            }
        }
    }
}
