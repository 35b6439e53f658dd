package dev.peregrine.peers.socket;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.support.PeerSupport;
import dev.peregrine.peers.support.TcpFrameLayout;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Accepts on one thread and echoes each connection's frames on a thread of its own, blocking in read (with a
 * period above 1, only every Nth frame).
 */
final class SocketResponder implements Responder {
    private final ServerSocket server;
    private final AtomicLong messages = new AtomicLong();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final int size;
    /** Bytes of the sequence field an answer copies from its message. */
    private final int sequenceLength;
    /** Bytes of each answer, or -1 to echo each frame as it came. */
    private final int replySize;
    /** Answer only the frames {@link BenchConfig#answers} picks with this period; 1 for all. */
    private final int respondEvery;
    private volatile boolean closed;

    private SocketResponder(final ServerSocket server, final int size, final int sequenceLength, final int replySize,
                            final int respondEvery) {
        this.server = server;
        this.size = size;
        this.sequenceLength = sequenceLength;
        this.replySize = replySize;
        this.respondEvery = respondEvery;
    }

    static SocketResponder start(final BenchConfig config) throws IOException {
        final ServerSocket server = new ServerSocket();
        try {
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(config.host(), config.port()));
        } catch (final IOException ex) {
            server.close();
            throw new IOException("cannot listen on " + config.host() + ":" + config.port(), ex);
        }
        final SocketResponder responder = new SocketResponder(server, config.size(), config.sequenceLength(),
            config.asymmetric() ? config.replySize() : -1, config.respondEvery());
        responder.threads.add(PeerSupport.start("socket-acceptor", responder::acceptLoop));
        return responder;
    }

    private void acceptLoop() {
        int count = 0;
        while (!closed) {
            try {
                final Socket socket = server.accept();
                SocketBenchTransport.configure(socket);
                sockets.add(socket);
                threads.add(PeerSupport.start("socket-echo-" + count++, () -> echoLoop(socket)));
            } catch (final IOException ex) {
                if (!closed) {
                    System.err.println("socket responder: accept failed: " + ex);
                }
                return;
            }
        }
    }

    private void echoLoop(final Socket socket) {
        try (socket) {
            final SocketFrameReader reader = new SocketFrameReader(socket.getInputStream(), sequenceLength);
            final OutputStream out = socket.getOutputStream();
            byte[] frame = new byte[TcpFrameLayout.HEADER_LENGTH + Math.max(size, replySize)];
            while (!closed) {
                final long sequence = reader.read();
                final int length = reader.payloadLength();
                if (respondEvery > 1 && !BenchConfig.answers(sequence, respondEvery)) {
                    messages.incrementAndGet(); // read, and left unanswered by design
                    continue;
                }
                // an echo, or a reply of replySize bytes that starts with the message's sequence field
                final int answer = replySize < 0 ? length : replySize;
                if (TcpFrameLayout.HEADER_LENGTH + answer > frame.length) {
                    frame = new byte[TcpFrameLayout.HEADER_LENGTH + answer];
                }
                TcpFrameLayout.putLength(frame, answer);
                System.arraycopy(reader.payload(), 0, frame, TcpFrameLayout.HEADER_LENGTH,
                    replySize < 0 ? length : Math.min(length, sequenceLength));
                // counted before the echo leaves, so a client that has its echo also sees it counted
                messages.incrementAndGet(); // one echo thread per connection: several writers, so an atomic add
                out.write(frame, 0, TcpFrameLayout.HEADER_LENGTH + answer);
            }
        } catch (final IOException | IllegalStateException ex) {
            // EOF or reset when the client goes away is the normal end of a connection
            if (!closed && !(ex instanceof java.io.EOFException)) {
                System.err.println("socket responder: connection closed: " + ex);
            }
        } finally {
            sockets.remove(socket);
        }
    }

    @Override
    public long messages() {
        return messages.get();
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (final IOException ignored) {
            // closing is best effort; the threads below end either way
        }
        for (final Socket socket : sockets) {
            try {
                socket.close();
            } catch (final IOException ignored) {
                // as above
            }
        }
        for (final Thread thread : threads) {
            PeerSupport.join(thread);
        }
    }
}
