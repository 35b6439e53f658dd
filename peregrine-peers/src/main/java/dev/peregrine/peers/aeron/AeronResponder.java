package dev.peregrine.peers.aeron;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.support.PeerSupport;
import io.aeron.Aeron;
import io.aeron.FragmentAssembler;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Launches the embedded driver, subscribes to pings and echoes each one on the pong publication, polling on
 * a thread of its own.
 */
final class AeronResponder implements Responder {
    private static final int FRAGMENT_LIMIT = 16;

    private final MediaDriver driver;
    private final Aeron aeron;
    private final Subscription pings;
    private final Publication pongs;
    private final IdleStrategy idle;
    private final FragmentHandler handler;
    private final AtomicLong messages = new AtomicLong();
    private final Thread thread;
    private volatile boolean running = true;

    private AeronResponder(final BenchConfig config, final MediaDriver driver, final Aeron aeron,
        final String pingChannel, final String pongChannel) {
        this.driver = driver;
        this.aeron = aeron;
        this.pings = aeron.addSubscription(pingChannel, AeronDriverSettings.PING_STREAM_ID);
        this.pongs = aeron.addPublication(pongChannel, AeronDriverSettings.PONG_STREAM_ID);
        this.idle = AeronDriverSettings.pollIdleStrategy(config);
        this.handler = new FragmentAssembler(this::echo);
        this.thread = PeerSupport.start("aeron-responder", this::run);
    }

    static AeronResponder start(final BenchConfig config, final boolean driverOnDataPath, final String pingChannel, final String pongChannel) {
        final MediaDriver driver = AeronConnections.launch(AeronDriverSettings.driverContext(config, driverOnDataPath));
        Aeron aeron = null;
        try {
            aeron = AeronConnections.connect(AeronDriverSettings.clientContext(config));
            return new AeronResponder(config, driver, aeron, pingChannel, pongChannel);
        } catch (final RuntimeException ex) {
            AeronConnections.closeAll(aeron, driver);
            throw ex;
        }
    }

    private void run() {
        while (running) {
            idle.idle(pings.poll(handler, FRAGMENT_LIMIT));
        }
    }

    private void echo(final DirectBuffer buffer, final int offset, final int length, final Header header) {
        // counted before the echo leaves, so a client that has its echo also sees it counted
        messages.lazySet(messages.get() + 1);
        long result;
        while ((result = pongs.offer(buffer, offset, length)) < 0) {
            // NOT_CONNECTED until the client's subscription is seen, BACK_PRESSURED while it catches up
            if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED || !running) {
                return;
            }
            Thread.onSpinWait();
        }
    }

    @Override
    public long messages() {
        return messages.get();
    }

    @Override
    public void close() {
        running = false;
        PeerSupport.join(thread);
        AeronConnections.closeAll(pongs, pings, aeron, driver);
    }
}
