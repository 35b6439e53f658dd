package dev.peregrine.peers.nassau;

import com.paritytrading.nassau.soupbintcp.SoupBinTCP;
import com.paritytrading.nassau.soupbintcp.SoupBinTCPServer;
import com.paritytrading.nassau.soupbintcp.SoupBinTCPServerStatusListener;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchMessageLayout;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.support.PeerSupport;
import dev.peregrine.peers.support.SoupBenchScenario;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code nassau-soup}'s answering side: one thread busy-polling a {@code Selector} ({@code selectNow} with a
 * consumer) for the listening channel and every connection, a Nassau {@code SoupBinTCPServer} per connection. Each
 * user owns a session: a sequence counter kept across its connections; a ping (Unsequenced Data) is answered with
 * {@code send()} of {@link BenchConfig#replySize()} bytes carrying its sequence field, one Sequenced Data packet.
 */
final class NassauSoupResponder implements Responder {
    private final BenchConfig config;
    private final ServerSocketChannel listener;
    private final Selector selector;
    /** Each user's next sequence number: the "session" a counter is enough for, as nothing is replayed. */
    private final Map<String, long[]> sessions = new HashMap<>();
    private final List<Connection> connections = new ArrayList<>();
    /** The answer, copied out of Nassau's receive buffer (which it goes on parsing) or written in place. */
    private final ByteBuffer reply;
    private final boolean echo;
    private final int sequenceLength;
    private final int respondEvery;
    private final Consumer<SelectionKey> onReady = this::onReady;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile long messages;

    private NassauSoupResponder(final BenchConfig config, final ServerSocketChannel listener, final Selector selector) {
        this.config = config;
        this.listener = listener;
        this.selector = selector;
        this.reply = ByteBuffer.allocateDirect(config.largest());
        this.echo = !config.asymmetric();
        this.sequenceLength = config.sequenceLength();
        this.respondEvery = config.respondEvery();
        this.thread = PeerSupport.start("nassau-soup-responder", this::run);
    }

    static NassauSoupResponder start(final BenchConfig config) throws IOException {
        final ServerSocketChannel listener = ServerSocketChannel.open();
        Selector selector = null;
        try {
            listener.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            listener.bind(NassauSoupBenchTransport.address(config));
            listener.configureBlocking(false);
            selector = Selector.open();
            listener.register(selector, SelectionKey.OP_ACCEPT);
            return new NassauSoupResponder(config, listener, selector);
        } catch (final IOException ex) {
            listener.close();
            if (selector != null) {
                selector.close();
            }
            throw new IOException("cannot listen on " + NassauSoupBenchTransport.address(config), ex);
        }
    }

    private void run() {
        int turns = 0;
        try {
            while (running) {
                selector.selectNow(onReady);
                if (++turns == NassauSoupBenchTransport.KEEP_ALIVE_EVERY) {
                    turns = 0;
                    for (int i = connections.size() - 1; i >= 0; i--) {
                        try {
                            connections.get(i).server.keepAlive();
                        } catch (final IOException ex) {
                            connections.get(i).close();
                        }
                    }
                }
            }
        } catch (final IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        } finally {
            for (int i = connections.size() - 1; i >= 0; i--) {
                connections.get(i).close();
            }
            PeerSupport.closeQuietly(listener);
            PeerSupport.closeQuietly(selector);
        }
    }

    private void onReady(final SelectionKey key) {
        if (key.attachment() instanceof final Connection connection) {
            try {
                if (connection.server.receive() < 0) {
                    connection.close();
                }
            } catch (final IOException ex) {
                connection.close(); // a client that leaves or misbehaves ends its own connection only
            }
        } else {
            accept();
        }
    }

    private void accept() {
        try {
            final SocketChannel channel = listener.accept();
            if (channel != null) {
                NassauSoupBenchTransport.configure(channel);
                final Connection connection = new Connection(channel);
                channel.register(selector, SelectionKey.OP_READ, connection);
                connections.add(connection);
            }
        } catch (final IOException ex) {
            // a connection that failed while being accepted: the client sees it
        }
    }


    @Override
    public long messages() {
        return messages;
    }

    @Override
    public void close() {
        running = false;
        PeerSupport.join(thread);
    }

    /** One client: its Nassau server session and the user's sequence counter once logged in. */
    private final class Connection implements SoupBinTCPServerStatusListener {
        final SocketChannel channel;
        final SoupBinTCPServer server;
        long[] next;

        Connection(final SocketChannel channel) {
            this.channel = channel;
            this.server = new SoupBinTCPServer(channel, NassauSoupBenchTransport.maxPayload(config), this::onPing, this);
        }

        private void onPing(final ByteBuffer ping) throws IOException {
            if (next == null) {
                throw new IOException("Unsequenced Data before login");
            }
            if (respondEvery > 1 && !BenchConfig.answers(NassauMoldBenchTransport.sequence(ping,
                BenchMessageLayout.LONG_SEQUENCE_LENGTH), respondEvery)) {
                messages++; // read, and left unanswered by design
                return;
            }
            reply.clear();
            if (echo) {
                reply.put(0, ping, ping.position(), ping.remaining()).limit(ping.remaining());
            } else {
                BenchMessageLayout.putSequence(reply, 0, sequenceLength,
                    NassauMoldBenchTransport.sequence(ping, sequenceLength));
                reply.limit(config.replySize());
            }
            // counted before the answer leaves: a client that has the answer must find the ping counted
            messages++; // single writer: this thread
            server.send(reply);
            next[0]++;
        }

        @Override
        public void loginRequest(final SoupBinTCPServer session, final SoupBinTCP.LoginRequest request)
            throws IOException {
            final String user = request.getUsername().trim();
            final String name = SoupBenchScenario.sessionOf(user);
            final String requested = request.getRequestedSession().trim();
            final long[] counter = sessions.computeIfAbsent(user, u -> new long[] {1});
            final long from = request.getRequestedSequenceNumber();
            if (!SoupBenchScenario.PASSWORD.equals(request.getPassword().trim())
                || !requested.isEmpty() && !requested.equals(name) || from != 0 && from != counter[0]) {
                final SoupBinTCP.LoginRejected rejected = new SoupBinTCP.LoginRejected();
                rejected.setRejectReasonCode(SoupBenchScenario.PASSWORD.equals(request.getPassword().trim())
                    ? SoupBinTCP.LOGIN_REJECT_CODE_SESSION_NOT_AVAILABLE : SoupBinTCP.LOGIN_REJECT_CODE_NOT_AUTHORIZED);
                session.reject(rejected);
                close();
                return;
            }
            final SoupBinTCP.LoginAccepted accepted = new SoupBinTCP.LoginAccepted();
            accepted.setSession(name);
            accepted.setSequenceNumber(counter[0]);
            session.accept(accepted);
            next = counter;
        }

        @Override
        public void logoutRequest(final SoupBinTCPServer session) {
            close();
        }

        @Override
        public void heartbeatTimeout(final SoupBinTCPServer session) {
            close();
        }

        void close() {
            connections.remove(this);
            try {
                server.close(); // closes the channel, which cancels its key
            } catch (final IOException ex) {
                // closing
            }
        }
    }
}
