package dev.peregrine.peers.nio;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchMessageLayout;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.support.PeerSupport;
import dev.peregrine.peers.support.TcpFrameLayout;
import dev.peregrine.reactor.IdleStrategy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The textbook single-selector NIO loop: one thread, one {@link Selector} with the listening channel (OP_ACCEPT)
 * and every connection (OP_READ) registered. Per ready connection it makes one read and answers all whole frames
 * of it with one write, as {@link NioResponder} does; a write the kernel takes only in part leaves the rest in
 * place and the connection waits for OP_WRITE instead of OP_READ until the rest is written (so a client that
 * stops reading is not read either).
 *
 * <p>A busy-spinning run polls with {@link Selector#selectNow(Consumer)}, any other blocks in
 * {@link Selector#select(Consumer)}; both hand each ready key to a consumer held in a field, with no selected-key
 * set to iterate.
 */
final class NioSelectorResponder implements Responder {
    /** Capacity of a connection's buffer of gathered answers (only when answers are not echoes in place). */
    private static final int REPLIES_SIZE = 64 * 1024;

    private final Selector selector;
    private final ServerSocketChannel server;
    private final boolean busySpin;
    private final IdleStrategy idle;
    private final AtomicLong messages = new AtomicLong();
    /** Bytes of each answer, or -1 to echo each frame as it came. */
    private final int replySize;
    /** Bytes of the sequence field at the start of each message and answer. */
    private final int sequenceLength;
    /** Answer only the frames {@link BenchConfig#answers} picks with this period; 1 for all. */
    private final int respondEvery;
    /** The longest frame a connection of this run may send or be answered with, header included. */
    private final int largestFrame;
    /** Whether answers are echoes in place (no gathering buffer per connection). */
    private final boolean inPlace;
    private final Consumer<SelectionKey> onReady = this::onReady;
    private final Thread thread;
    /** Frames handled in the current select pass, for the idle strategy. */
    private int work;
    private volatile boolean running = true;

    private NioSelectorResponder(final Selector selector, final ServerSocketChannel server, final BenchConfig config) {
        this.selector = selector;
        this.server = server;
        this.busySpin = config.busySpin();
        this.idle = PeerSupport.idleStrategy(config);
        this.replySize = config.asymmetric() ? config.replySize() : -1;
        this.sequenceLength = config.sequenceLength();
        this.respondEvery = config.respondEvery();
        this.largestFrame = TcpFrameLayout.HEADER_LENGTH + config.largest();
        this.inPlace = replySize < 0 && respondEvery == 1;
        this.thread = PeerSupport.start("nio-selector-responder", this::run);
    }

    static NioSelectorResponder start(final BenchConfig config) throws IOException {
        final ServerSocketChannel server = NioBenchTransport.listen(config);
        try {
            final Selector selector = Selector.open();
            server.register(selector, SelectionKey.OP_ACCEPT);
            return new NioSelectorResponder(selector, server, config);
        } catch (final IOException | RuntimeException ex) {
            server.close();
            throw ex;
        }
    }

    private void run() {
        try {
            while (running) {
                work = 0;
                if (busySpin) {
                    selector.selectNow(onReady);
                    idle.idle(work);
                } else {
                    selector.select(onReady); // close() wakes it
                }
            }
        } catch (final IOException ex) {
            System.err.println("nio-selector responder: select failed: " + ex);
        } finally {
            for (final SelectionKey key : selector.keys()) {
                PeerSupport.closeQuietly(key.channel());
            }
            PeerSupport.closeQuietly(selector);
        }
    }

    private void onReady(final SelectionKey key) {
        if (key.channel() == server) {
            accept();
            return;
        }
        final Connection connection = (Connection) key.attachment();
        try {
            if (key.isWritable()) {
                writePending(key, connection);
            } else if (key.isReadable()) {
                if (connection.reader.fill() > 0) {
                    answer(key, connection);
                }
            }
        } catch (final IOException | UncheckedIOException | IllegalStateException ex) {
            // a client that leaves or misbehaves ends its own connection only (closing cancels its key)
            PeerSupport.closeQuietly(connection.channel);
        }
    }

    private void accept() {
        try {
            SocketChannel channel;
            while ((channel = server.accept()) != null) {
                NioBenchTransport.configure(channel);
                channel.register(selector, SelectionKey.OP_READ, new Connection(channel, sequenceLength,
                    inPlace ? null : ByteBuffer.allocateDirect(Math.max(REPLIES_SIZE, largestFrame))));
            }
        } catch (final IOException ex) {
            System.err.println("nio-selector responder: accept failed: " + ex);
        }
    }

    /** Answers the whole frames buffered, stopping at a write the kernel takes only in part. */
    private void answer(final SelectionKey key, final Connection connection) throws IOException {
        if (inPlace) {
            echo(key, connection);
        } else {
            while (gather(connection)) {
                if (!write(key, connection)) {
                    return;
                }
            }
        }
    }

    private void echo(final SelectionKey key, final Connection connection) throws IOException {
        final NioFrameReader reader = connection.reader;
        final int start = reader.readIndex();
        int frames = 0;
        while (reader.next() >= 0) {
            frames++;
        }
        if (frames > 0) {
            count(frames);
            connection.out.limit(reader.readIndex()).position(start);
            write(key, connection);
        }
    }

    /**
     * Takes the buffered frames whose answers fit in the connection's buffer of answers, and gathers them there.
     *
     * @return true if there is something to write
     */
    private boolean gather(final Connection connection) {
        final NioFrameReader reader = connection.reader;
        final ByteBuffer replies = connection.out;
        replies.clear();
        int frames = 0;
        long sequence;
        // room for the longest answer before a frame is taken, so no taken frame waits for room
        while (replies.remaining() >= largestFrame && (sequence = reader.next()) >= 0) {
            frames++;
            if (respondEvery > 1 && !BenchConfig.answers(sequence, respondEvery)) {
                continue; // read, and left unanswered by design
            }
            final int payloadLength = replySize < 0 ? reader.lastPayloadLength() : replySize;
            final int frameLength = TcpFrameLayout.HEADER_LENGTH + payloadLength;
            if (frameLength > largestFrame) {
                throw new IllegalStateException("frame length=" + frameLength + " exceeds the run's largest="
                    + largestFrame);
            }
            if (replySize < 0) {
                replies.put(replies.position(), reader.buffer(), reader.readIndex() - frameLength, frameLength);
            } else {
                // the rest of the reply is whatever the buffer holds: its content is not part of the contract
                replies.putInt(replies.position(), replySize);
                BenchMessageLayout.putSequence(replies, replies.position() + TcpFrameLayout.SEQUENCE_OFFSET,
                    sequenceLength, sequence);
            }
            replies.position(replies.position() + frameLength);
        }
        // counted before the answers leave, so a client that has its answer also sees it counted
        count(frames);
        replies.flip();
        return replies.hasRemaining();
    }

    /**
     * Writes the connection's pending bytes once.
     *
     * @return true if all were written; otherwise the key waits for OP_WRITE instead of OP_READ
     */
    private boolean write(final SelectionKey key, final Connection connection) throws IOException {
        connection.channel.write(connection.out);
        if (connection.out.hasRemaining()) {
            key.interestOps(SelectionKey.OP_WRITE);
            return false;
        }
        return true;
    }

    private void writePending(final SelectionKey key, final Connection connection) throws IOException {
        if (!write(key, connection)) {
            return;
        }
        if (!inPlace) {
            // frames taken from the last read may still wait for room in the buffer of answers
            while (gather(connection)) {
                if (!write(key, connection)) {
                    return;
                }
            }
        }
        key.interestOps(SelectionKey.OP_READ);
    }

    private void count(final int frames) {
        if (frames > 0) {
            work += frames;
            messages.lazySet(messages.get() + frames);
        }
    }


    @Override
    public long messages() {
        return messages.get();
    }

    @Override
    public void close() {
        running = false;
        selector.wakeup();
        PeerSupport.join(thread);
    }

    /** One accepted connection: its reader and the bytes it has to write. */
    private static final class Connection {
        final SocketChannel channel;
        final NioFrameReader reader;
        /** A view of the reader's buffer (echoes in place) or a buffer of gathered answers of its own. */
        final ByteBuffer out;

        Connection(final SocketChannel channel, final int sequenceLength, final ByteBuffer replies) {
            this.channel = channel;
            this.reader = new NioFrameReader(channel, sequenceLength);
            this.out = replies != null ? replies : reader.buffer().duplicate();
        }
    }
}
