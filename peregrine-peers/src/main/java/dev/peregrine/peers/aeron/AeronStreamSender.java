package dev.peregrine.peers.aeron;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.StreamSender;
import io.aeron.Aeron;
import io.aeron.Publication;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;

/**
 * Offers each message once; a negative result (back-pressure, admin action) is reported as not taken.
 */
final class AeronStreamSender implements StreamSender {
    private final Aeron aeron;
    private final Publication publication;
    private final UnsafeBuffer message;
    private final int size;

    private AeronStreamSender(final Aeron aeron, final String channel, final int size) {
        this.aeron = aeron;
        this.size = size;
        this.publication = aeron.addPublication(channel, AeronDriverSettings.STREAM_STREAM_ID);
        this.message = new UnsafeBuffer(BufferUtil.allocateDirectAligned(size, 64));
        AeronConnections.awaitConnected(publication, null);
    }

    static AeronStreamSender connect(final BenchConfig config, final String channel) {
        final Aeron aeron = AeronConnections.connect(AeronDriverSettings.clientContext(config));
        try {
            return new AeronStreamSender(aeron, channel, config.size());
        } catch (final RuntimeException ex) {
            aeron.close();
            throw ex;
        }
    }

    @Override // compiled in this class, the loop's call of offer(long) is this class's alone
    public int offer(final long firstSequence, final int count) {
        return StreamSender.offerEach(this, firstSequence, count);
    }

    @Override
    public boolean offer(final long sequence) {
        message.putLong(0, sequence, ByteOrder.LITTLE_ENDIAN);
        final long result = publication.offer(message, 0, size);
        if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED) {
            throw new IllegalStateException("publication closed: channel=" + publication.channel() + " result=" + result);
        }
        return result > 0;
    }

    @Override
    public void close() {
        AeronConnections.closeAll(publication, aeron);
    }
}
