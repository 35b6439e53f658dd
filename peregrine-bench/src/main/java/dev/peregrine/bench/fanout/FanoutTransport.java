package dev.peregrine.bench.fanout;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;

/**
 * One way of sending one stream from one writer to many reader processes, as {@code bench fanout} drives it: the
 * writer in the bench's JVM, each reader in a child JVM of its own ({@link FanoutReaderChild}).
 */
public interface FanoutTransport {
    /** Most messages (or Aeron fragments) a reader takes in one poll of a latency run. */
    int LATENCY_POLL_LIMIT = 64;
    /** Most messages (or Aeron fragments) a reader takes in one poll of a throughput run: fewer polls per message. */
    int THROUGHPUT_POLL_LIMIT = 256;

    /**
     * The name shown in the table and given to {@code --transport}.
     *
     * @return the name
     */
    String name();

    /**
     * Most readers it can have at once (the one-to-one ring: 1).
     *
     * @return the count
     */
    int maxReaders();

    /**
     * Whether the writer overwrites what a slow reader has not read ({@code DROP}): such a transport has no
     * throughput row, since every reader must see every sequence there.
     *
     * @return true if a reader that falls behind loses records by design
     */
    boolean dropsWhenBehind();

    /**
     * JVM options both sides need.
     *
     * @return the options
     */
    List<String> jvmArguments();

    /**
     * How the writer and the readers wait, and anything else the report must say about the set-up.
     *
     * @return one line
     */
    String describe();

    /**
     * Opens the writer side in this JVM.
     *
     * @param directory a fresh directory of this run, for files
     * @param size the message size
     * @param readers the readers that will attach
     * @return the writer
     */
    Writer openWriter(Path directory, int size, int readers);

    /**
     * Attaches one reader, in a child JVM.
     *
     * @param directory the run's directory
     * @param size the message size
     * @param index the reader's index, from 0
     * @param pollLimit most messages one poll takes ({@link #LATENCY_POLL_LIMIT} or {@link #THROUGHPUT_POLL_LIMIT})
     * @param sink receives each message
     * @return the reader, attached: once this returns, the writer's next message reaches it
     */
    Reader attach(Path directory, int size, int index, int pollLimit, Sink sink);

    /** The writer's side of a run. Not thread-safe: one thread offers. */
    interface Writer extends AutoCloseable {
        /**
         * The buffer the next message is written into, {@link FanoutMessage#MAX_SIZE} bytes or more.
         *
         * @return the buffer
         */
        MemorySegment buffer();

        /**
         * Sends the message in {@link #buffer()}; never waits.
         *
         * @param length the length
         * @return true if it was sent, false if back-pressured (try again)
         */
        boolean offer(int length);

        /**
         * Readers the writer evicted so far (the broadcast log under {@code BLOCK}), or 0.
         *
         * @return the count
         */
        default long evictions() {
            return 0;
        }

        /** Closes the writer: readers find it gone. */
        @Override
        void close();
    }

    /** A reader's side. Not thread-safe: one thread reads. */
    interface Reader extends AutoCloseable {
        /**
         * Delivers what is ready to the sink or, if nothing is, waits a bounded while as the transport waits.
         *
         * @return messages delivered
         */
        int read();

        /**
         * Why the reader stopped (evicted, failed), or null while it reads.
         *
         * @return the reason or null
         */
        String failure();

        /** Detaches. */
        @Override
        void close();
    }

    /** Receives a reader's messages: the sequence and the intended send time they carry. */
    @FunctionalInterface
    interface Sink {
        /**
         * One message.
         *
         * @param sequence its sequence
         * @param sendNs its intended send time ({@code System.nanoTime} of the writer's process), or 0
         */
        void onMessage(long sequence, long sendNs);
    }
}
