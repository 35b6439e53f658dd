package dev.peregrine.peers.aeron;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchMessageLayout;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.support.ReplyLength;
import io.aeron.Aeron;
import io.aeron.FragmentAssembler;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;

/**
 * Publishes pings from one reused buffer on an exclusive publication and polls the pongs of its own session
 * one fragment at a time.
 */
final class AeronPingClient implements PingClient {
    private final Aeron aeron;
    private final Publication pings;
    private final Subscription pongs;
    private final UnsafeBuffer message;
    private final FragmentHandler handler;
    private final int size;
    private final int replySize;
    private final int sequenceLength;
    private long lastSent;
    private long received;
    private int receivedLength;

    private AeronPingClient(final Aeron aeron, final String pingChannel, final String pongChannel,
        final BenchConfig config) {
        this.aeron = aeron;
        this.size = config.size();
        this.replySize = config.replySize();
        this.sequenceLength = config.sequenceLength();
        // an exclusive publication has a session of its own, which names this client's pongs
        this.pings = aeron.addExclusivePublication(pingChannel, AeronDriverSettings.PING_STREAM_ID);
        this.pongs = aeron.addSubscription(AeronDriverSettings.withSessionId(pongChannel, pings.sessionId()),
            AeronDriverSettings.PONG_STREAM_ID);
        this.message = new UnsafeBuffer(BufferUtil.allocateDirectAligned(size, 64));
        this.handler = new FragmentAssembler(this::onPong);
        // the pong side connects once the responder has the first ping of this session
        AeronConnections.awaitConnected(pings, null);
    }

    static AeronPingClient connect(final BenchConfig config, final String pingChannel, final String pongChannel) {
        final Aeron aeron = AeronConnections.connect(AeronDriverSettings.clientContext(config));
        try {
            return new AeronPingClient(aeron, pingChannel, pongChannel, config);
        } catch (final RuntimeException ex) {
            aeron.close();
            throw ex;
        }
    }

    private void onPong(final DirectBuffer buffer, final int offset, final int length, final Header header) {
        // the field as BenchMessageLayout lays it out: a 32-bit one unsigned, so never taken for "none"
        received = sequenceLength == BenchMessageLayout.LONG_SEQUENCE_LENGTH
            ? buffer.getLong(offset, ByteOrder.LITTLE_ENDIAN)
            : buffer.getInt(offset, ByteOrder.LITTLE_ENDIAN) & 0xFFFF_FFFFL;
        receivedLength = length;
    }

    @Override
    public void send(final long sequence) {
        if (sequenceLength == BenchMessageLayout.LONG_SEQUENCE_LENGTH) {
            message.putLong(0, sequence, ByteOrder.LITTLE_ENDIAN);
        } else {
            message.putInt(0, (int) sequence, ByteOrder.LITTLE_ENDIAN);
        }
        lastSent = sequence;
        if (!AeronConnections.offer(pings, message, 0, size)) {
            throw new IllegalStateException("publication closed: channel=" + pings.channel());
        }
    }

    @Override
    public long poll() {
        received = -1;
        pongs.poll(handler, 1);
        return received < 0 ? -1 : BenchMessageLayout.widen(ReplyLength.check(receivedLength, replySize, received),
            lastSent, sequenceLength);
    }

    @Override
    public void close() {
        AeronConnections.closeAll(pings, pongs, aeron);
    }
}
