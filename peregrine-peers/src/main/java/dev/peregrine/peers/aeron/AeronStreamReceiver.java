package dev.peregrine.peers.aeron;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.StreamReceiver;
import io.aeron.Aeron;
import io.aeron.FragmentAssembler;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import org.agrona.DirectBuffer;

import java.nio.ByteOrder;
import java.util.function.LongConsumer;

/**
 * Launches the embedded driver and subscribes; the caller's {@link #poll} delivers up to
 * {@value #FRAGMENT_LIMIT} messages per call.
 */
final class AeronStreamReceiver implements StreamReceiver {
    private static final int FRAGMENT_LIMIT = 256;

    private final MediaDriver driver;
    private final Aeron aeron;
    private final Subscription subscription;
    private final FragmentHandler handler;
    private LongConsumer sequences;

    private AeronStreamReceiver(final MediaDriver driver, final Aeron aeron, final String channel) {
        this.driver = driver;
        this.aeron = aeron;
        this.subscription = aeron.addSubscription(channel, AeronDriverSettings.STREAM_STREAM_ID);
        this.handler = new FragmentAssembler(this::onMessage);
    }

    static AeronStreamReceiver start(final BenchConfig config, final boolean driverOnDataPath, final String channel) {
        final MediaDriver driver = AeronConnections.launch(AeronDriverSettings.driverContext(config, driverOnDataPath));
        Aeron aeron = null;
        try {
            aeron = AeronConnections.connect(AeronDriverSettings.clientContext(config));
            return new AeronStreamReceiver(driver, aeron, channel);
        } catch (final RuntimeException ex) {
            AeronConnections.closeAll(aeron, driver);
            throw ex;
        }
    }

    private void onMessage(final DirectBuffer buffer, final int offset, final int length, final Header header) {
        sequences.accept(buffer.getLong(offset, ByteOrder.LITTLE_ENDIAN));
    }

    @Override
    public int poll(final LongConsumer sequences) {
        this.sequences = sequences;
        return subscription.poll(handler, FRAGMENT_LIMIT);
    }

    @Override
    public void close() {
        AeronConnections.closeAll(subscription, aeron, driver);
    }
}
