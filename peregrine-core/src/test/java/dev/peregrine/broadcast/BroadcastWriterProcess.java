package dev.peregrine.broadcast;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A writer in a process of its own: {@code <directory> <log> <count>}. Opens the log's writer, offers {@code count}
 * 8-byte records (0, 1, 2, ...), prints {@code written <position>} and waits to be killed.
 */
public final class BroadcastWriterProcess {
    private BroadcastWriterProcess() {
    }

    /**
     * Runs the writer.
     *
     * @param args see the class comment
     * @throws Exception on any failure
     */
    public static void main(final String[] args) throws Exception {
        final BroadcastWriter writer = BroadcastWriter.open(Path.of(args[0]), args[1]);
        final byte[] bytes = new byte[8];
        for (long i = 0; i < Long.parseLong(args[2]); i++) {
            java.lang.foreign.MemorySegment.ofArray(bytes).set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
            if (writer.offer(bytes, 0, 8) != BroadcastWriter.OFFERED) {
                System.out.println("refused at " + i);
                return;
            }
        }
        System.out.println("written " + writer.position());
        System.out.flush();
        Thread.sleep(TimeUnit.MINUTES.toMillis(5));
    }
}
