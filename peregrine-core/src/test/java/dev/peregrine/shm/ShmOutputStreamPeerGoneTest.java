package dev.peregrine.shm;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The blocking output stream once the peer has gone: nobody reads the ring any more, so a write or a flush throws
 * "broken pipe" with how the peer went, rather than filling a ring for nobody until it is full.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShmOutputStreamPeerGoneTest {
    private static final int CAPACITY = 64 * 1024;
    /** Records of an 8-byte message the ring holds: far more than the socket check's interval. */
    private static final int RECORDS_IN_RING = CAPACITY / 16;

    @TempDir
    Path dir;

    private final Arena peerArena = Arena.ofShared();
    private final ExecutorService executor = Executors.newSingleThreadExecutor();

    @AfterEach
    void release() {
        executor.shutdownNow();
        peerArena.close();
    }

    @Test
    void shouldThrowBrokenPipeOnTheFirstWriteAndFlushAfterThePeerClosed() throws Exception {
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("closed.sock"));
        try (ShmServerSocket server = new ShmServerSocket(address, options())) {
            final Future<ShmSocket> accepted = executor.submit(server::accept);
            final ShmSocket peer = ShmSocket.connect(address, options());
            try (ShmSocket socket = accepted.get(20, TimeUnit.SECONDS)) {
                final OutputStream out = socket.getOutputStream();
                out.write(new byte[8]);
                out.flush();
                peer.close();
                assertThatThrownBy(() -> out.write(new byte[8])).isInstanceOf(IOException.class)
                    .hasMessage("broken pipe: the peer closed the connection");
                assertThatThrownBy(() -> out.write(1)).as("and every write after it")
                    .hasMessage("broken pipe: the peer closed the connection");
                assertThatThrownBy(out::flush).hasMessage("broken pipe: the peer closed the connection");
            } finally {
                peer.close();
            }
        }
    }

    @Test
    void shouldThrowBrokenPipeWithinTheSocketCheckIntervalAfterThePeerDied() throws Exception {
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("died.sock"));
        try (ShmServerSocket server = new ShmServerSocket(address, options())) {
            final Future<ShmSocket> accepted = executor.submit(server::accept);
            final SocketChannel peer = connectRaw(address);
            try (ShmSocket socket = accepted.get(20, TimeUnit.SECONDS)) {
                final OutputStream out = socket.getOutputStream();
                final byte[] message = new byte[8];
                out.write(message);
                peer.close(); // died: the socket ends, its ring is never marked closed
                IOException failure = null;
                int written = 0;
                while (written < RECORDS_IN_RING) {
                    try {
                        out.write(message);
                    } catch (final IOException ex) {
                        failure = ex;
                        break;
                    }
                    written++;
                }
                assertThat(failure).as("a write fails while the ring still has room").isNotNull()
                    .hasMessage("broken pipe: the peer process died or dropped the connection");
                assertThat(written).as("messages taken after the peer died")
                    .isLessThan(ShmOutputStream.SOCKET_CHECK_INTERVAL);
                assertThatThrownBy(out::flush).hasMessage("broken pipe: the peer process died or dropped the connection");
            }
        }
    }

    @Test
    void shouldLetFlushAfterALocalCloseDoNothingAndAWriteSaySocketClosed() throws Exception {
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(dir.resolve("local.sock"));
        try (ShmServerSocket server = new ShmServerSocket(address, options())) {
            final Future<ShmSocket> accepted = executor.submit(server::accept);
            final ShmSocket peer = ShmSocket.connect(address, options());
            try {
                final ShmSocket socket = accepted.get(20, TimeUnit.SECONDS);
                final OutputStream out = socket.getOutputStream();
                socket.close();
                out.flush();
                assertThatThrownBy(() -> out.write(1)).hasMessage("socket closed");
            } finally {
                peer.close();
            }
        }
    }

    private ShmOptions options() {
        return new ShmOptions().ringCapacity(CAPACITY).maxMessageLength(64).maxMessagesInFlight(RECORDS_IN_RING)
            .recordAlignment(ShmRingDescriptor.RECORD_HEADER_LENGTH).ringDirectory(dir);
    }

    /** The client end of a rendezvous, done by hand, so that it can drop its socket without closing its ring. */
    private SocketChannel connectRaw(final UnixDomainSocketAddress address) throws IOException {
        return RawRendezvous.connect(address, peerArena).socket();
    }
}
