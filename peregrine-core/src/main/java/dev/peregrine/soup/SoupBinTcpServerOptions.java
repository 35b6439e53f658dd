package dev.peregrine.soup;

import dev.peregrine.tcp.Framing;
import dev.peregrine.tcp.TcpOptions;

import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

/**
 * Settings of a {@link SoupBinTcpServer}; fluent, validated on each setter. The defaults are the values Nassau
 * uses: a heartbeat after 1 s without sending, a connection lost after 15 s without receiving.
 */
public final class SoupBinTcpServerOptions {
    private TcpOptions tcp = new TcpOptions();
    private int maxPacketLength = SoupBinTcpLayout.MAX_PACKET_LENGTH;
    private long loginTimeoutNs = TimeUnit.SECONDS.toNanos(5);
    private long heartbeatIntervalNs = TimeUnit.SECONDS.toNanos(1);
    private long receiveTimeoutNs = TimeUnit.SECONDS.toNanos(15);
    private int replayBurst = 256;
    private int replayCycleBytes = 64 * 1024;

    /** Creates options with the defaults. */
    public SoupBinTcpServerOptions() {
    }

    /**
     * The TCP settings (buffers, connection limit); the server sets their framing ({@code length:2be}) and
     * maximum frame length ({@link #maxPacketLength(int)}) itself.
     *
     * @param tcp the settings
     * @return this
     */
    public SoupBinTcpServerOptions tcp(final TcpOptions tcp) {
        if (tcp == null) {
            throw new IllegalArgumentException("tcp=null");
        }
        this.tcp = tcp;
        return this;
    }

    /**
     * The longest packet (Packet Length: type and payload) a client may send; a longer one closes its connection.
     * Default 65 535, the most the field can express.
     *
     * @param length from 47 (a Login Request) to 65 535
     * @return this
     */
    public SoupBinTcpServerOptions maxPacketLength(final int length) {
        if (length < SoupBinTcpLayout.LOGIN_REQUEST_LENGTH + 1 || length > SoupBinTcpLayout.MAX_PACKET_LENGTH) {
            throw new IllegalArgumentException("maxPacketLength=" + length + " must be in [47, 65535]");
        }
        this.maxPacketLength = length;
        return this;
    }

    /**
     * How long a new connection may take to send its Login Request before it is closed; default 5 s.
     *
     * @param timeout at least 1 ms
     * @param unit its unit
     * @return this
     */
    public SoupBinTcpServerOptions loginTimeout(final long timeout, final TimeUnit unit) {
        this.loginTimeoutNs = positive("loginTimeout", timeout, unit);
        return this;
    }

    /**
     * Silence after which a Server Heartbeat is sent; default 1 s.
     *
     * @param interval at least 1 ms
     * @param unit its unit
     * @return this
     */
    public SoupBinTcpServerOptions heartbeatInterval(final long interval, final TimeUnit unit) {
        this.heartbeatIntervalNs = positive("heartbeatInterval", interval, unit);
        return this;
    }

    /**
     * Silence from a client after which its connection is closed as lost; default 15 s.
     *
     * @param timeout at least 1 ms
     * @param unit its unit
     * @return this
     */
    public SoupBinTcpServerOptions receiveTimeout(final long timeout, final TimeUnit unit) {
        this.receiveTimeoutNs = positive("receiveTimeout", timeout, unit);
        return this;
    }

    /**
     * Most messages replayed to one connection per duty cycle, so that one client catching up does not hold up
     * the others; default 256.
     *
     * @param messages at least 1
     * @return this
     */
    public SoupBinTcpServerOptions replayBurst(final int messages) {
        if (messages < 1) {
            throw new IllegalArgumentException("replayBurst=" + messages + " must be at least 1");
        }
        this.replayBurst = messages;
        return this;
    }

    /**
     * Most bytes replayed per duty cycle, all replaying connections together, so that a cycle's replay work (copies
     * and socket writes) is bounded whatever the number of clients replaying, and a caught-up client's messages do
     * not wait behind it; the replaying clients share it in turn (the next cycle goes on after the last one served).
     * A run's first message is sent whatever its length. Clients that are caught up are served first and are not
     * counted against it. Default 64 KiB.
     *
     * @param bytes at least 1
     * @return this
     */
    public SoupBinTcpServerOptions replayCycleBytes(final int bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("replayCycleBytes=" + bytes + " must be at least 1");
        }
        this.replayCycleBytes = bytes;
        return this;
    }

    /**
     * The TCP settings, with the SoupBinTCP framing and this maximum applied.
     *
     * @return the settings the server's transport uses
     */
    public TcpOptions tcp() {
        return tcp.framing(Framing.lengthPrefixed(2, ByteOrder.BIG_ENDIAN, false)).maxFrameLength(maxPacketLength);
    }

    /**
     * The longest packet a client may send.
     *
     * @return Packet Length, type included
     */
    public int maxPacketLength() {
        return maxPacketLength;
    }

    /**
     * The login timeout.
     *
     * @return nanoseconds
     */
    public long loginTimeoutNs() {
        return loginTimeoutNs;
    }

    /**
     * The heartbeat interval.
     *
     * @return nanoseconds
     */
    public long heartbeatIntervalNs() {
        return heartbeatIntervalNs;
    }

    /**
     * The receive timeout.
     *
     * @return nanoseconds
     */
    public long receiveTimeoutNs() {
        return receiveTimeoutNs;
    }

    /**
     * Most messages replayed per connection per duty cycle.
     *
     * @return messages
     */
    public int replayBurst() {
        return replayBurst;
    }

    /**
     * Most bytes replayed per duty cycle, all replaying connections together.
     *
     * @return bytes
     */
    public int replayCycleBytes() {
        return replayCycleBytes;
    }

    static long positive(final String name, final long value, final TimeUnit unit) {
        if (unit == null) {
            throw new IllegalArgumentException(name + " unit=null");
        }
        final long ns = unit.toNanos(value);
        if (ns < TimeUnit.MILLISECONDS.toNanos(1)) {
            throw new IllegalArgumentException(name + "=" + value + " " + unit + " must be at least 1 ms");
        }
        return ns;
    }
}
