package dev.peregrine.peers.aeron;

import io.aeron.Aeron;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import org.agrona.CloseHelper;

/**
 * Starting and connecting the Aeron pieces with a bounded wait, and closing them in the right order.
 */
final class AeronConnections {
    private AeronConnections() {
    }

    /**
     * Waits until the publication has a subscriber and the subscription an image (both directions live).
     *
     * @throws IllegalStateException after {@link AeronDriverSettings#CONNECT_TIMEOUT_NS}
     */
    static void awaitConnected(final Publication publication, final Subscription subscription) {
        final long deadline = System.nanoTime() + AeronDriverSettings.CONNECT_TIMEOUT_NS;
        while ((publication != null && !publication.isConnected())
            || (subscription != null && !subscription.isConnected())) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("not connected after " + AeronDriverSettings.CONNECT_TIMEOUT_NS / 1_000_000
                    + " ms: publication=" + (publication == null ? "-" : publication.channel() + " connected="
                    + publication.isConnected()) + " subscription=" + (subscription == null ? "-"
                    : subscription.channel() + " connected=" + subscription.isConnected()));
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    /**
     * Offers until the message is taken, retrying while back-pressured.
     *
     * @return false if the publication is closed or the given flag stops the retry
     */
    static boolean offer(final Publication publication, final org.agrona.DirectBuffer buffer, final int offset,
        final int length) {
        long result;
        while ((result = publication.offer(buffer, offset, length)) < 0) {
            if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED) {
                return false;
            }
            Thread.onSpinWait();
        }
        return true;
    }

    static void closeAll(final AutoCloseable... closeables) {
        CloseHelper.closeAll(closeables);
    }

    static MediaDriver launch(final MediaDriver.Context context) {
        return MediaDriver.launchEmbedded(context);
    }

    static Aeron connect(final Aeron.Context context) {
        return Aeron.connect(context);
    }
}
