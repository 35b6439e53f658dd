package dev.peregrine.shm;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The blocking input stream once the peer has gone: what it wrote before is read, then the end of the stream
 * (orderly) or "connection reset" (it died); a ring that keeps filling afterwards (a process still holding the
 * mapping) does not keep the stream going for ever, and a corrupt record is never taken for the end.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShmSocketPeerGoneTest {
    private static final int CAPACITY = 64 * 1024;
    /** Most records one lap of the ring can hold. */
    private static final int LAP = CAPACITY / ShmRingDescriptor.RECORD_HEADER_LENGTH;
    private static final ValueLayout.OfLong BIG_ENDIAN_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    @TempDir
    Path dir;

    private final Arena peerArena = Arena.ofShared();
    private final MemorySegment message = Arena.ofAuto().allocate(8);
    private final ExecutorService executor = Executors.newSingleThreadExecutor();

    /** The client end of a rendezvous, done by hand: the socket and a writer on the client-to-server ring. */
    private record RawPeer(SocketChannel socket, ShmRingWriter writer) {
    }

    @AfterEach
    void release() {
        executor.shutdownNow();
        peerArena.close();
    }

    @Test
    void shouldResetTheStreamWhenAGonePeersRingKeepsFillingForMoreThanTwoLaps() throws Exception {
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("s.sock"));
        try (ShmServerSocket server = new ShmServerSocket(address, options())) {
            final Future<ShmSocket> accepted = executor.submit(server::accept);
            final RawPeer hostile = connect(address);
            try (ShmSocket socket = accepted.get(20, TimeUnit.SECONDS)) {
                for (long i = 1; i <= 10; i++) {
                    write(hostile.writer(), i);
                }
                // a message written for every one read, so the ring is never empty: while the peer is there, and
                // after it dropped its socket, by something still holding the mapping; capped at four laps so that
                // a stream without a bound still ends
                final long cap = 4L * LAP;
                final long goneAfter = 100;
                long written = 10;
                long read = 0;
                IOException failure = null;
                final DataInputStream in = new DataInputStream(socket.getInputStream());
                for (long i = 0; i <= cap; i++) {
                    try {
                        assertThat(in.readLong()).isEqualTo(read + 1);
                    } catch (final IOException ex) {
                        failure = ex;
                        break;
                    }
                    read++;
                    if (read == goneAfter) {
                        hostile.socket().close();
                    }
                    if (written < cap) {
                        write(hostile.writer(), ++written);
                    }
                }
                assertThat(failure).as("the stream ends with the reason").isNotNull()
                    .hasMessageStartingWith("connection reset: ").hasMessageContaining("kept filling");
                // the socket is looked at once a lap of messages while the ring is never empty, then two laps more
                assertThat(read).as("read before the stream noticed and gave up").isGreaterThan(goneAfter)
                    .isLessThan(written).isLessThanOrEqualTo(3L * LAP);
                assertThat(catchIo(in::read)).as("and so does the next read").hasMessageContaining("kept filling");
            }
        }
    }

    @Test
    void shouldReadEverythingAGonePeerWroteBeforeTheResetEvenWhenItIsMoreThanALivenessCheckApart() throws Exception {
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("d.sock"));
        try (ShmServerSocket server = new ShmServerSocket(address, options())) {
            final Future<ShmSocket> accepted = executor.submit(server::accept);
            final RawPeer peer = connect(address);
            try (ShmSocket socket = accepted.get(20, TimeUnit.SECONDS)) {
                final DataInputStream in = new DataInputStream(socket.getInputStream());
                final long count = 3_000; // a ring nearly full of 16-byte records, read while the peer is still there
                for (long i = 1; i <= count; i++) {
                    write(peer.writer(), i);
                }
                for (long i = 1; i <= 1_000; i++) {
                    assertThat(in.readLong()).isEqualTo(i);
                }
                for (long i = count + 1; i <= count + 1_000; i++) {
                    write(peer.writer(), i); // the ring wraps
                }
                peer.socket().close(); // died: its ring is not marked closed
                for (long i = 1_001; i <= count + 1_000; i++) {
                    assertThat(in.readLong()).isEqualTo(i);
                }
                final IOException failure = catchIo(in::read);
                assertThat(failure).hasMessage("connection reset: the peer process died or dropped the connection");
            }
        }
    }

    /**
     * The reader checks the socket (a lock on the connection) only once its ring looked empty: holding that lock,
     * the test makes the peer write a record, corrupt it and close in an orderly way between the reader's empty
     * poll and its look at the socket. The corrupt record is the reason the stream ends, not a clean end.
     */
    @Test
    void shouldReportACorruptRecordFoundAfterThePeerClosedAsTheReasonNotAsTheEndOfTheStream() throws Exception {
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("c.sock"));
        try (ShmServerSocket server = new ShmServerSocket(address, options())) {
            final Future<ShmSocket> accepted = executor.submit(server::accept);
            final ShmConnection connection = ShmRendezvous.connect(address, options());
            try (ShmSocket client = ShmSocket.open(connection, options())) {
                // not a resource of this try: the test closes it at a chosen moment (closing again does nothing)
                final ShmSocket peer = accepted.get(20, TimeUnit.SECONDS);
                try {
                    readCorruptRecordAfterClose(client, connection, peer);
                } finally {
                    peer.close();
                }
            }
        }
    }

    private void readCorruptRecordAfterClose(final ShmSocket client, final ShmConnection connection, final ShmSocket peer)
        throws Exception {
        final InputStream in = client.getInputStream();
        final CompletableFuture<Thread> readerThread = new CompletableFuture<>();
        final CompletableFuture<Object> outcome = CompletableFuture.supplyAsync(() -> {
            readerThread.complete(Thread.currentThread());
            try {
                return in.read();
            } catch (final IOException ex) {
                return ex;
            }
        }, executor);
        final Thread reader = readerThread.get(20, TimeUnit.SECONDS);
        synchronized (connection) {
            // the reader's liveness check (every 10 ms of an empty ring) waits for this lock
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (reader.getState() != Thread.State.BLOCKED) {
                assertThat(System.nanoTime()).as("reader blocked in its liveness check").isLessThan(deadline);
                Thread.sleep(1);
            }
            message.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 7);
            final long index = peer.writer().offer(message, 0, 8);
            assertThat(index).isNotNegative();
            // the record's frame length: shorter than a record header
            peer.writer().buffer().set(ValueLayout.JAVA_INT, index - ShmRingDescriptor.RECORD_HEADER_LENGTH, 3);
            peer.close(); // marks its ring closed, then closes the socket
        }
        final Object result = outcome.get(20, TimeUnit.SECONDS);
        assertThat(result).as("read() returned %s", result).isInstanceOf(IOException.class);
        assertThat((IOException)result).hasMessageStartingWith("connection reset: inbound ring corrupt: ")
            .hasMessageContaining("frameLength=3");
        assertThat(catchIo(in::read)).as("and so does the next read").isInstanceOf(IOException.class);
    }

    private interface IoCall {
        int call() throws IOException;
    }

    private static IOException catchIo(final IoCall call) {
        try {
            final int result = call.call();
            throw new AssertionError("expected an IOException, got " + result);
        } catch (final IOException ex) {
            return ex;
        }
    }

    private ShmOptions options() {
        return new ShmOptions().ringCapacity(CAPACITY).maxMessageLength(64).maxMessagesInFlight(4_096)
            .recordAlignment(ShmRingDescriptor.RECORD_HEADER_LENGTH).ringDirectory(dir);
    }

    private RawPeer connect(final UnixDomainSocketAddress address) throws IOException {
        final RawRendezvous rendezvous = RawRendezvous.connect(address, peerArena);
        return new RawPeer(rendezvous.socket(), new ShmRingWriter(rendezvous.clientToServer()));
    }

    private void write(final ShmRingWriter writer, final long value) {
        message.set(BIG_ENDIAN_LONG, 0, value); // as DataInputStream reads it
        assertThat(writer.offer(message, 0, 8)).as("room in the ring for message %d", value).isNotNegative();
    }
}
