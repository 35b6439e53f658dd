package dev.peregrine.bench.testing;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A test-only transport that crosses processes: blocking sockets on loopback, fixed-size messages. Used to
 * test the second-JVM responder without depending on the real transports.
 */
public final class LoopbackSocketBenchTransport implements BenchTransport {
    /** The name on the command line. */
    public static final String NAME = "test-socket";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "test-only blocking java.net.Socket echo";
    }

    @Override
    public String path() {
        return "tcp";
    }

    @Override
    public Responder startResponder(final BenchConfig config) throws IOException {
        final ServerSocket server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getByName(config.host()), config.port()));
        final AtomicLong echoed = new AtomicLong();
        final Thread thread = new Thread(() -> {
            try (Socket socket = server.accept()) {
                socket.setTcpNoDelay(true);
                final DataInputStream in = new DataInputStream(socket.getInputStream());
                final OutputStream out = socket.getOutputStream();
                final byte[] message = new byte[config.size()];
                while (true) {
                    in.readFully(message);
                    out.write(message);
                    echoed.lazySet(echoed.get() + 1);
                }
            } catch (final IOException ex) {
                // closed
            }
        }, "test-socket-responder");
        thread.setDaemon(true);
        thread.start();
        return new Responder() {
            @Override
            public long messages() {
                return echoed.get();
            }

            @Override
            public void close() {
                try {
                    server.close();
                } catch (final IOException ex) {
                    // closing
                }
            }
        };
    }

    @Override
    public PingClient connect(final BenchConfig config) throws IOException {
        final Socket socket = new Socket(config.host(), config.port());
        socket.setTcpNoDelay(true);
        final InputStream in = socket.getInputStream();
        final OutputStream out = socket.getOutputStream();
        final byte[] message = new byte[config.size()];
        final ByteBuffer view = ByteBuffer.wrap(message).order(ByteOrder.LITTLE_ENDIAN);
        return new PingClient() {
            @Override
            public void send(final long sequence) {
                view.putLong(0, sequence);
                try {
                    out.write(message);
                } catch (final IOException ex) {
                    throw new UncheckedIOException(ex);
                }
            }

            @Override
            public long poll() {
                try {
                    int got = 0;
                    while (got < message.length) {
                        final int n = in.read(message, got, message.length - got);
                        if (n < 0) {
                            throw new IOException("closed by responder");
                        }
                        got += n;
                    }
                    return view.getLong(0);
                } catch (final IOException ex) {
                    throw new UncheckedIOException(ex);
                }
            }

            @Override
            public void close() {
                try {
                    socket.close();
                } catch (final IOException ex) {
                    // closing
                }
            }
        };
    }
}
