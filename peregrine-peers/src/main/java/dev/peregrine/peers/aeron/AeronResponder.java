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
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Launches the embedded driver, subscribes to pings and echoes each one, polling on a thread of its own.
 *
 * <p>Each client publishes pings from an exclusive publication (a session of its own) and subscribes to pongs
 * of that session only, so the responder keeps one pong publication per ping session, created on that
 * session's first message; several clients (the load scenario) then never see each other's echoes.
 */
final class AeronResponder implements Responder {
    private static final int FRAGMENT_LIMIT = 16;

    private final MediaDriver driver;
    private final Aeron aeron;
    private final Subscription pings;
    private final String pongChannel;
    private final Int2ObjectHashMap<Publication> pongsBySession = new Int2ObjectHashMap<>();
    private final IdleStrategy idle;
    private final FragmentHandler handler;
    private final AtomicLong messages = new AtomicLong();
    private final Thread thread;
    /** What a reply of another size than the message is sent from, or null to echo each message. */
    private final UnsafeBuffer reply;
    /** Bytes of the sequence field a reply copies from its message. */
    private final int sequenceLength;
    private volatile boolean running = true;

    private AeronResponder(final BenchConfig config, final MediaDriver driver, final Aeron aeron,
        final String pingChannel, final String pongChannel) {
        this.driver = driver;
        this.aeron = aeron;
        this.pings = aeron.addSubscription(pingChannel, AeronDriverSettings.PING_STREAM_ID);
        this.pongChannel = pongChannel;
        this.idle = AeronDriverSettings.pollIdleStrategy(config);
        this.handler = new FragmentAssembler(this::echo);
        this.reply = config.asymmetric() ? new UnsafeBuffer(BufferUtil.allocateDirectAligned(config.replySize(), 64))
            : null;
        this.sequenceLength = config.sequenceLength();
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
            try {
                idle.idle(pings.poll(handler, FRAGMENT_LIMIT));
            } catch (final RuntimeException ex) {
                // one client's failure (say, a publication the driver refuses) must not stop the others' echoes
                System.err.println("aeron responder: " + ex);
            }
        }
    }

    private void echo(final DirectBuffer buffer, final int offset, final int length, final Header header) {
        final int sessionId = header.sessionId();
        Publication pongs = pongsBySession.get(sessionId);
        if (pongs == null) {
            // exclusive: a driver keeps one concurrent publication per channel and stream, whatever its session
            pongs = aeron.addExclusivePublication(AeronDriverSettings.withSessionId(pongChannel, sessionId),
                AeronDriverSettings.PONG_STREAM_ID);
            pongsBySession.put(sessionId, pongs);
        }
        // counted before the echo leaves, so a client that has its echo also sees it counted
        messages.lazySet(messages.get() + 1);
        long notConnectedSince = 0;
        final DirectBuffer answer;
        final int answerOffset;
        final int answerLength;
        if (reply == null) {
            answer = buffer;
            answerOffset = offset;
            answerLength = length;
        } else {
            // a reply of its own size that starts with the message's sequence field
            reply.putBytes(0, buffer, offset, Math.min(length, sequenceLength));
            answer = reply;
            answerOffset = 0;
            answerLength = reply.capacity();
        }
        long result;
        while ((result = pongs.offer(answer, answerOffset, answerLength)) < 0) {
            if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED || !running) {
                return;
            }
            if (result == Publication.NOT_CONNECTED) {
                // the client's pong subscription is not seen yet (its first message) or it has gone: wait a
                // bounded time, then drop this echo rather than stall every other client
                final long now = System.nanoTime();
                if (notConnectedSince == 0) {
                    notConnectedSince = now;
                } else if (now - notConnectedSince > AeronDriverSettings.CONNECT_TIMEOUT_NS) {
                    System.err.println("aeron responder: dropped an echo, session " + sessionId + " not connected");
                    return;
                }
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
        for (final Publication pongs : pongsBySession.values()) {
            AeronConnections.closeAll(pongs);
        }
        AeronConnections.closeAll(pings, aeron, driver);
    }
}
