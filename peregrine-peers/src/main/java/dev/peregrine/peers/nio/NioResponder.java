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
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One thread that polls the listening channel for new connections and every connection for frames, echoing
 * all whole frames of one read with one write (with a period above 1, only every Nth, copied together).
 */
final class NioResponder implements Responder {
    private final ServerSocketChannel server;
    private final IdleStrategy idle;
    private final AtomicLong messages = new AtomicLong();
    private final Thread thread;
    /** Bytes of each answer, or -1 to echo each frame as it came. */
    private final int replySize;
    /** Bytes of the sequence field at the start of each message and answer. */
    private final int sequenceLength;
    /** Answer only the frames {@link BenchConfig#answers} picks with this period; 1 for all. */
    private final int respondEvery;
    /** Where answers are gathered (replies of {@link #replySize} bytes, or every Nth echo), or null to echo in place. */
    private final ByteBuffer replies;
    private SocketChannel[] channels = new SocketChannel[0];
    private NioFrameReader[] readers = new NioFrameReader[0];
    private ByteBuffer[] views = new ByteBuffer[0];
    private volatile boolean running = true;

    private NioResponder(final ServerSocketChannel server, final IdleStrategy idle, final int replySize,
                         final int sequenceLength, final int respondEvery, final int largest) {
        this.server = server;
        this.idle = idle;
        this.replySize = replySize;
        this.sequenceLength = sequenceLength;
        this.respondEvery = respondEvery;
        this.replies = replySize < 0 && respondEvery == 1 ? null
            : ByteBuffer.allocateDirect(Math.max(NioBenchTransport.BUFFER_SIZE, TcpFrameLayout.HEADER_LENGTH + largest));
        this.thread = PeerSupport.start("nio-responder", this::run);
    }

    static NioResponder start(final BenchConfig config) throws IOException {
        return new NioResponder(NioBenchTransport.listen(config), PeerSupport.idleStrategy(config),
            config.asymmetric() ? config.replySize() : -1, config.sequenceLength(), config.respondEvery(),
            config.largest());
    }

    private void run() {
        try {
            while (running) {
                idle.idle(doWork());
            }
        } finally {
            for (final SocketChannel channel : channels) {
                PeerSupport.closeQuietly(channel);
            }
            PeerSupport.closeQuietly(server);
        }
    }

    private int doWork() {
        int work = accept();
        for (int i = 0; i < channels.length; i++) {
            try {
                work += echo(readers[i], channels[i], views[i]);
            } catch (final IOException | UncheckedIOException | IllegalStateException ex) {
                // a client that leaves or misbehaves ends its own connection only
                PeerSupport.closeQuietly(channels[i]);
                remove(i--);
            }
        }
        return work;
    }

    private int accept() {
        try {
            final SocketChannel channel = server.accept();
            if (channel == null) {
                return 0;
            }
            NioBenchTransport.configure(channel);
            final NioFrameReader reader = new NioFrameReader(channel, sequenceLength);
            channels = Arrays.copyOf(channels, channels.length + 1);
            readers = Arrays.copyOf(readers, readers.length + 1);
            views = Arrays.copyOf(views, views.length + 1);
            channels[channels.length - 1] = channel;
            readers[readers.length - 1] = reader;
            views[views.length - 1] = reader.buffer().duplicate();
            return 1;
        } catch (final IOException ex) {
            System.err.println("nio responder: accept failed: " + ex);
            return 0;
        }
    }

    private int echo(final NioFrameReader reader, final SocketChannel channel, final ByteBuffer view) throws IOException {
        if (reader.fill() == 0) {
            return 0;
        }
        if (replies != null) {
            return reply(reader, channel);
        }
        final int start = reader.readIndex();
        int frames = 0;
        while (reader.next() >= 0) {
            frames++;
        }
        if (frames > 0) {
            // counted before the echo leaves, so a client that has its echo also sees it counted
            messages.lazySet(messages.get() + frames);
            view.limit(reader.readIndex()).position(start);
            NioWriter.writeFully(channel, view, false);
        }
        return frames;
    }

    /**
     * Answers the whole frames read that are to be answered (all, or every Nth) with a frame of
     * {@link #replySize} bytes carrying its sequence, or with a copy of the frame, gathered into one write.
     */
    private int reply(final NioFrameReader reader, final SocketChannel channel) {
        replies.clear();
        int frames = 0;
        int pending = 0;
        long sequence;
        while ((sequence = reader.next()) >= 0) {
            frames++;
            pending++;
            if (respondEvery > 1 && !BenchConfig.answers(sequence, respondEvery)) {
                continue; // read, and left unanswered by design
            }
            final int payloadLength = replySize < 0 ? reader.lastPayloadLength() : replySize;
            final int frameLength = TcpFrameLayout.HEADER_LENGTH + payloadLength;
            if (replies.remaining() < frameLength) {
                writeReplies(channel, pending - 1);
                pending = 1;
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
        if (pending > 0) {
            writeReplies(channel, pending);
        }
        return frames;
    }

    /** Writes what is gathered (maybe nothing), counting {@code count} frames handled. */
    private void writeReplies(final SocketChannel channel, final int count) {
        // counted before the answers leave, so a client that has its answer also sees it counted
        messages.lazySet(messages.get() + count);
        replies.flip();
        if (replies.hasRemaining()) {
            NioWriter.writeFully(channel, replies, false);
        }
        replies.clear();
    }

    private void remove(final int index) {
        final int last = channels.length - 1;
        channels[index] = channels[last];
        readers[index] = readers[last];
        views[index] = views[last];
        channels = Arrays.copyOf(channels, last);
        readers = Arrays.copyOf(readers, last);
        views = Arrays.copyOf(views, last);
    }


    @Override
    public long messages() {
        return messages.get();
    }

    @Override
    public void close() {
        running = false;
        PeerSupport.join(thread);
    }
}
