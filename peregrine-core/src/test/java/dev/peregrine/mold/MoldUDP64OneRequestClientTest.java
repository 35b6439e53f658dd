package dev.peregrine.mold;

import dev.peregrine.reactor.BusySpinIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.udp.UdpOptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client in the style of Nassau's {@code MoldUDP64Client}, written here: no reorder buffer, one request in flight,
 * and a request sent again only after its timeout and only when a packet arrives. It follows a feed of 100 000
 * messages at 100 000 a second with 1% of its packets dropped, from a request server whose budget it certainly
 * exceeds (2 000 answers a second, bursts of 10), and must receive every message, in order, with no request dropped:
 * over the budget, its requests wait and are answered late. Dropped, each would cost it a whole timeout.
 */
@Tag("slow")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MoldUDP64OneRequestClientTest {
    private static final String SESSION = "ONEREQUEST";
    private static final int MESSAGES = 100_000;
    private static final int RATE = 100_000;
    private static final int SIZE = 32;
    /** Nassau's: a request unanswered this long may be sent again, when a packet arrives. */
    private static final long REQUEST_TIMEOUT_NS = 1_000_000_000L;
    /** A run that hangs fails here; a working one takes a few seconds. */
    private static final long DEADLINE_NS = 90_000_000_000L;

    @Test
    void shouldCatchUpAtOnePercentLossOf100kMessagesASecondWithNoRequestDropped() throws IOException {
        final SplittableRandom random = new SplittableRandom(34);
        try (Reactor reactor = new Reactor(new ReactorOptions().idleStrategy(new BusySpinIdleStrategy()));
             MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory(SESSION, 1 << 18, 64L << 20);
             DatagramChannel feed = DatagramChannel.open();
             DatagramChannel requests = DatagramChannel.open()) {
            feed.setOption(StandardSocketOptions.SO_RCVBUF, 8 << 20);
            feed.bind(MoldFixture.loopback(0)).configureBlocking(false);
            requests.bind(MoldFixture.loopback(0)).configureBlocking(false);
            final MoldUDP64RequestServer server = new MoldUDP64RequestServer(reactor, store,
                new UdpOptions().localAddress(MoldFixture.loopback(0)), MoldUDP64Layout.DEFAULT_MAX_PAYLOAD, 2_000, 10);
            // as mold publish --count lingers: End of Session every 100 ms, and the server answering meanwhile
            final MoldUDP64Publisher publisher = new MoldUDP64Publisher(reactor, store, new MoldUDP64PublisherOptions()
                .destination((InetSocketAddress)feed.getLocalAddress()).heartbeatIntervalNs(100_000_000L)
                .endOfSessionRepeats(1_000)
                .filter((sequence, count) -> count == 0 || count == MoldUDP64Layout.END_OF_SESSION || random.nextDouble() >= 0.01));
            final OneRequestClient client = new OneRequestClient(requests, server.localAddress());
            final MemorySegment message = MemorySegment.ofArray(new byte[SIZE]);

            final long startNs = System.nanoTime();
            long published = 0;
            while (client.next <= MESSAGES && System.nanoTime() - startNs < DEADLINE_NS) {
                final long due = Math.min((System.nanoTime() - startNs) * RATE / 1_000_000_000L, MESSAGES);
                for (; published < due; published++) {
                    message.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 0, publisher.nextSequence());
                    publisher.offer(message, 0, SIZE);
                }
                if (published == MESSAGES) {
                    publisher.close();
                }
                reactor.doWork();
                client.poll(feed);
                client.poll(requests);
            }

            assertThat(client.next - 1).as("every message, in order").isEqualTo(MESSAGES);
            assertThat(client.outOfOrder).isZero();
            assertThat(server.deferred()).as("the budget was exceeded").isPositive();
            assertThat(server.rateLimited()).as("and no request was dropped").isZero();
        }
    }

    /**
     * Nassau's client in outline: delivers in order only (no reorder buffer), and asks for everything from the next
     * expected message to the highest seen, when a packet arrives and no request is in flight or its timeout is over.
     */
    private static final class OneRequestClient {
        private final DatagramChannel requests;
        private final InetSocketAddress server;
        private final ByteBuffer packet = ByteBuffer.allocate(2048).order(ByteOrder.BIG_ENDIAN);
        private final ByteBuffer request = ByteBuffer.allocate(MoldUDP64Layout.REQUEST_LENGTH).order(ByteOrder.BIG_ENDIAN);
        private long next = 1;
        private long outOfOrder;
        private boolean inFlight;
        private long requestedNs;
        private long requestedFrom;
        /** One past the highest message any packet showed: what is asked for, up to 65 535 at a time. */
        private long highest = 1;

        OneRequestClient(final DatagramChannel requests, final InetSocketAddress server) {
            this.requests = requests;
            this.server = server;
        }

        void poll(final DatagramChannel channel) throws IOException {
            for (int i = 0; i < 64 && channel.receive(packet.clear()) != null; i++) {
                packet.flip();
                onPacket(channel == requests);
            }
        }

        private void onPacket(final boolean answer) throws IOException {
            final long sequence = packet.getLong(10);
            final int count = Short.toUnsignedInt(packet.getShort(18));
            final boolean endOfSession = count == MoldUDP64Layout.END_OF_SESSION;
            final int messages = endOfSession ? 0 : count;
            if (answer && inFlight && sequence == requestedFrom) {
                inFlight = false; // answered: the next packet may ask for more
            }
            if (sequence <= next) {
                int position = MoldUDP64Layout.HEADER_LENGTH;
                for (long s = sequence; s < sequence + messages; s++) {
                    final int length = Short.toUnsignedInt(packet.getShort(position));
                    if (s == next) {
                        outOfOrder += packet.getLong(position + 2) == s ? 0 : 1;
                        next++;
                    }
                    position += 2 + length;
                }
            }
            highest = Math.max(highest, sequence + messages);
            final long nowNs = System.nanoTime();
            if (highest > next && (!inFlight || nowNs - requestedNs >= REQUEST_TIMEOUT_NS)) {
                request.clear().put(MoldUDP64Layout.session(SESSION).toArray(ValueLayout.JAVA_BYTE)).putLong(next)
                    .putShort((short)Math.min(highest - next, 0xFFFF)).flip();
                requests.send(request, server);
                inFlight = true;
                requestedNs = nowNs;
                requestedFrom = next;
            }
        }
    }
}
