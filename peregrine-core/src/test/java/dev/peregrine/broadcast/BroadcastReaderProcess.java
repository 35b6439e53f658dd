package dev.peregrine.broadcast;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A reader in a process of its own, for the multi-process tests:
 * {@code <directory> <log> <reader name> <count> <busy-spin|backoff|futex|stall>}. Prints {@code ready <entry>} once
 * attached, then reads {@code count} records whose first 8 bytes must be their index (0, 1, 2, ...) and prints
 * {@code ok <delivered> <missed>} or {@code bad <why>}. With {@code stall} it reads nothing and waits to be killed.
 */
public final class BroadcastReaderProcess {
    private BroadcastReaderProcess() {
    }

    /**
     * Runs the reader.
     *
     * @param args see the class comment
     * @throws Exception on any failure
     */
    public static void main(final String[] args) throws Exception {
        final Path directory = Path.of(args[0]);
        final long count = Long.parseLong(args[3]);
        final String mode = args[4];
        try (BroadcastReader reader = BroadcastReader.attach(directory, args[1], args[2], BroadcastStart.LIVE)) {
            System.out.println("ready " + reader.entry());
            System.out.flush();
            if ("stall".equals(mode)) {
                Thread.sleep(TimeUnit.MINUTES.toMillis(5));
                return;
            }
            final BroadcastWait wait = switch (mode) {
                case "busy-spin" -> BroadcastWait.BUSY_SPIN;
                case "backoff" -> BroadcastWait.BACKOFF;
                default -> BroadcastWait.FUTEX;
            };
            final long[] next = {0};
            final String[] problem = {null};
            final BroadcastHandler handler = new BroadcastHandler() {
                @Override
                public void onRecord(final MemorySegment buffer, final long offset, final int length,
                    final long position) {
                    final long value = buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
                    if (problem[0] == null && (value != next[0] || position != next[0])) {
                        problem[0] = "expected " + next[0] + " got value " + value + " at position " + position;
                    }
                    next[0]++;
                }

                @Override
                public void onLapped(final long missed, final long resumePosition) {
                    problem[0] = "lapped " + missed;
                }

                @Override
                public void onEvicted(final String reason) {
                    problem[0] = "evicted " + reason;
                }

                @Override
                public void onFailed(final String reason) {
                    problem[0] = "failed " + reason;
                }
            };
            final BroadcastBlockingReader blocking = new BroadcastBlockingReader(reader, wait);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(100);
            while (next[0] < count && !reader.isDone() && System.nanoTime() < deadline) {
                blocking.read(handler, 256, TimeUnit.MILLISECONDS.toNanos(100));
            }
            System.out.println(problem[0] == null && next[0] == count
                ? "ok " + reader.delivered() + " " + reader.missed() : "bad " + problem[0] + " after " + next[0]);
            System.out.flush();
        }
    }
}
