package dev.peregrine.soup;

import dev.peregrine.tcp.Framing;
import dev.peregrine.tcp.TcpOptions;

import java.net.SocketAddress;
import java.nio.ByteOrder;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

/**
 * Settings of a {@link SoupBinTcpClient}; fluent, validated on each setter. Heartbeat and timeout default to the
 * values Nassau uses (1 s, 15 s); reconnecting backs off from 10 ms to 1 s.
 */
public final class SoupBinTcpClientOptions {
    private List<SocketAddress> addresses = List.of();
    private String username = "";
    private String password = "";
    private String session = "";
    private long fromSequence = 1;
    private TcpOptions tcp = new TcpOptions();
    private int maxPacketLength = SoupBinTcpLayout.MAX_PACKET_LENGTH;
    private long heartbeatIntervalNs = TimeUnit.SECONDS.toNanos(1);
    private long receiveTimeoutNs = TimeUnit.SECONDS.toNanos(15);
    private long backoffInitialNs = TimeUnit.MILLISECONDS.toNanos(10);
    private long backoffMaxNs = TimeUnit.SECONDS.toNanos(1);
    private long pendingSpinNs = TimeUnit.MILLISECONDS.toNanos(1);
    private int maxSessionRejections = 3;
    private RandomGenerator random = new SplittableRandom();

    /** Creates options with the defaults; at least one address must be given. */
    public SoupBinTcpClientOptions() {
    }

    /**
     * The servers, tried in turn: each new attempt after a failed connect or a lost connection goes to the next.
     *
     * @param addresses at least one
     * @return this
     */
    public SoupBinTcpClientOptions addresses(final SocketAddress... addresses) {
        if (addresses == null || addresses.length == 0 || java.util.Arrays.asList(addresses).contains(null)) {
            throw new IllegalArgumentException("addresses must be at least one, none null");
        }
        this.addresses = List.of(addresses);
        return this;
    }

    /**
     * The credentials of the Login Request.
     *
     * @param username at most 6 letters and digits
     * @param password at most 10 printable characters, no space
     * @return this
     */
    public SoupBinTcpClientOptions credentials(final String username, final String password) {
        check("username", username, SoupBinTcpLayout.USERNAME_LENGTH);
        check("password", password, SoupBinTcpLayout.PASSWORD_LENGTH);
        this.username = username;
        this.password = password;
        return this;
    }

    /**
     * The session asked for at the first login; empty (the default) asks for the one currently active. Later
     * logins name the session the server accepted.
     *
     * @param session at most 10 letters and digits, or empty
     * @return this
     */
    public SoupBinTcpClientOptions session(final String session) {
        check("session", session, SoupBinTcpLayout.SESSION_LENGTH);
        this.session = session;
        return this;
    }

    /**
     * The first sequence number wanted; 0 asks for the next message published (no replay). Default 1.
     *
     * @param sequence at least 0
     * @return this
     */
    public SoupBinTcpClientOptions fromSequence(final long sequence) {
        if (sequence < 0) {
            throw new IllegalArgumentException("fromSequence=" + sequence + " must be at least 0");
        }
        this.fromSequence = sequence;
        return this;
    }

    /**
     * The TCP settings; the client sets their framing ({@code length:2be}) and maximum frame length itself.
     *
     * @param tcp the settings
     * @return this
     */
    public SoupBinTcpClientOptions tcp(final TcpOptions tcp) {
        if (tcp == null) {
            throw new IllegalArgumentException("tcp=null");
        }
        this.tcp = tcp;
        return this;
    }

    /**
     * The longest packet the server may send; a longer one is a protocol fault. Default 65 535.
     *
     * @param length from 31 (a Login Accepted) to 65 535
     * @return this
     */
    public SoupBinTcpClientOptions maxPacketLength(final int length) {
        if (length < SoupBinTcpLayout.LOGIN_ACCEPTED_LENGTH + 1 || length > SoupBinTcpLayout.MAX_PACKET_LENGTH) {
            throw new IllegalArgumentException("maxPacketLength=" + length + " must be in [31, 65535]");
        }
        this.maxPacketLength = length;
        return this;
    }

    /**
     * Silence after which a Client Heartbeat is sent; default 1 s.
     *
     * @param interval at least 1 ms
     * @param unit its unit
     * @return this
     */
    public SoupBinTcpClientOptions heartbeatInterval(final long interval, final TimeUnit unit) {
        this.heartbeatIntervalNs = SoupBinTcpServerOptions.positive("heartbeatInterval", interval, unit);
        return this;
    }

    /**
     * Silence from the server after which the connection counts as lost; default 15 s.
     *
     * @param timeout at least 1 ms
     * @param unit its unit
     * @return this
     */
    public SoupBinTcpClientOptions receiveTimeout(final long timeout, final TimeUnit unit) {
        this.receiveTimeoutNs = SoupBinTcpServerOptions.positive("receiveTimeout", timeout, unit);
        return this;
    }

    /**
     * The reconnect back-off: the first retry after a loss is immediate; each later one waits twice as long as the
     * one before, from {@code initial} up to {@code max}, times a random factor in [0.5, 1) (the jitter).
     *
     * @param initial the wait before the second retry, at least 1 ms
     * @param max the longest wait, at least {@code initial}
     * @param unit their unit
     * @return this
     */
    public SoupBinTcpClientOptions backoff(final long initial, final long max, final TimeUnit unit) {
        final long initialNs = SoupBinTcpServerOptions.positive("backoff initial", initial, unit);
        final long maxNs = SoupBinTcpServerOptions.positive("backoff max", max, unit);
        if (maxNs < initialNs) {
            throw new IllegalArgumentException("backoff max=" + max + " must be at least initial=" + initial);
        }
        this.backoffInitialNs = initialNs;
        this.backoffMaxNs = maxNs;
        return this;
    }

    /**
     * How long a connection attempt keeps its reactor awake: from the connect, for this long, while the connect is
     * pending or the Login Accepted awaited, the client counts as work on every duty cycle, so that an idle strategy
     * that backs off (a {@link dev.peregrine.reactor.BackoffIdleStrategy} parks up to its maximum, and a park on
     * Linux lasts at least the thread's timer slack, some 50 us) does not sleep through the completion of a connect
     * or the Login Accepted that a server on loopback or a LAN sends within tens of microseconds. An attempt that
     * takes longer (a distant or dead server) lets the reactor back off again. Default 1 ms; 0 never keeps it awake.
     *
     * @param spin at least 0
     * @param unit its unit
     * @return this
     */
    public SoupBinTcpClientOptions pendingSpin(final long spin, final TimeUnit unit) {
        if (spin < 0 || unit == null) {
            throw new IllegalArgumentException("pendingSpin=" + spin + " unit=" + unit + ": give 0 or more");
        }
        this.pendingSpinNs = unit.toNanos(spin);
        return this;
    }

    /**
     * How many Login Rejected {@code S} (session not available) in a row, from any of the addresses, the client takes
     * before it stops; default 3. Each one is retried like a lost connection: the next address, after the back-off.
     * A Login Accepted starts the count again. A server that keeps answering {@code S} (it lacks the session, or the
     * sequence asked for) is not tried for ever.
     *
     * @param rejections at least 1
     * @return this
     */
    public SoupBinTcpClientOptions maxSessionRejections(final int rejections) {
        if (rejections < 1) {
            throw new IllegalArgumentException("maxSessionRejections=" + rejections + " must be at least 1");
        }
        this.maxSessionRejections = rejections;
        return this;
    }

    /**
     * The source of the jitter; injectable so that a test knows the schedule.
     *
     * @param random the generator, used on the reactor thread only
     * @return this
     */
    public SoupBinTcpClientOptions random(final RandomGenerator random) {
        if (random == null) {
            throw new IllegalArgumentException("random=null");
        }
        this.random = random;
        return this;
    }

    List<SocketAddress> addresses() {
        return addresses;
    }

    String username() {
        return username;
    }

    String password() {
        return password;
    }

    String session() {
        return session;
    }

    long fromSequence() {
        return fromSequence;
    }

    TcpOptions tcp() {
        return tcp.framing(Framing.lengthPrefixed(2, ByteOrder.BIG_ENDIAN, false)).maxFrameLength(maxPacketLength);
    }

    long heartbeatIntervalNs() {
        return heartbeatIntervalNs;
    }

    long receiveTimeoutNs() {
        return receiveTimeoutNs;
    }

    long backoffInitialNs() {
        return backoffInitialNs;
    }

    long backoffMaxNs() {
        return backoffMaxNs;
    }

    long pendingSpinNs() {
        return pendingSpinNs;
    }

    int maxSessionRejections() {
        return maxSessionRejections;
    }

    RandomGenerator random() {
        return random;
    }

    private static void check(final String name, final String text, final int width) {
        if (text == null || text.length() > width || !text.chars().allMatch(c -> c > 0x20 && c < 0x7F)) {
            throw new IllegalArgumentException(name + "=" + text + " must be at most " + width
                + " printable ASCII characters without spaces");
        }
    }
}
