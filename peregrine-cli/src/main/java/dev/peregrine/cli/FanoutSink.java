package dev.peregrine.cli;

import dev.peregrine.broadcast.BroadcastLogOptions;
import dev.peregrine.broadcast.BroadcastPolicy;
import dev.peregrine.broadcast.BroadcastWriter;
import dev.peregrine.examples.mold.MoldListenerApp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code mold listen --fanout NAME}: republishes each recovered, in-order message into a broadcast log as one record,
 * {@code [MoldUDP64 sequence, 8 bytes little-endian][the message]}. The log is {@code DROP}, so a slow local reader
 * never holds the network subscriber back; one that falls a ring behind is told what it missed. A message longer
 * than the log's records hold is not written, never cut: it is counted ({@link #tooLong()}), and the command says so
 * when it ends.
 */
final class FanoutSink implements MoldListenerApp.MessageSink, AutoCloseable {
    /** Records the log holds unless {@code --fanout-capacity} says otherwise. */
    static final int DEFAULT_CAPACITY = 16_384;
    /** Readers at once. */
    static final int READERS = 64;
    /** The sequence before each message. */
    static final int HEADER = 8;
    /** The longest record unless {@code --fanout-max-record} says otherwise: the sequence and the longest message. */
    static final int DEFAULT_MAX_RECORD = HEADER + MoldCommand.MAX_MESSAGE;

    private final BroadcastWriter writer;
    private final MemorySegment record;
    private long dropped;
    private long tooLong;

    private FanoutSink(final BroadcastWriter writer) {
        this.writer = writer;
        this.record = MemorySegment.ofArray(new byte[writer.maxRecordLength()]);
    }

    /**
     * Creates the log, or opens it (a new writer goes on where the last stopped, in the log's own sizes).
     *
     * @param directory the logs' directory
     * @param name the log's name
     * @param capacity records the log holds, if it is made
     * @param maxRecord the longest record, if it is made
     * @return the sink
     */
    static FanoutSink open(final Path directory, final String name, final int capacity, final int maxRecord) {
        final Path file = directory.resolve(name + ".bcast");
        if (Files.exists(file)) {
            return new FanoutSink(BroadcastWriter.open(directory, name));
        }
        return new FanoutSink(BroadcastWriter.create(directory, name, BroadcastLogOptions.of(capacity,
            maxRecord, READERS, BroadcastPolicy.DROP)));
    }

    @Override
    public void onMessage(final long sequence, final MemorySegment buffer, final long offset, final int length) {
        if (length > writer.maxRecordLength() - HEADER) {
            tooLong++; // a cut message would pass for a whole one
            return;
        }
        record.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, sequence);
        MemorySegment.copy(buffer, offset, record, HEADER, length);
        if (writer.offer(record, 0, HEADER + length) != BroadcastWriter.OFFERED) {
            dropped++;
        }
    }

    /**
     * Records not written (the writer was closed).
     *
     * @return the count
     */
    long dropped() {
        return dropped;
    }

    /**
     * Messages not written because they are longer than the log's records hold ({@code --fanout-max-record} less
     * the 8 bytes of sequence).
     *
     * @return the count
     */
    long tooLong() {
        return tooLong;
    }

    /**
     * The longest message a record holds.
     *
     * @return bytes
     */
    int maxMessage() {
        return writer.maxRecordLength() - HEADER;
    }

    /**
     * The log's file.
     *
     * @return the path
     */
    Path path() {
        return writer.path();
    }

    @Override
    public void close() {
        writer.close();
    }
}
