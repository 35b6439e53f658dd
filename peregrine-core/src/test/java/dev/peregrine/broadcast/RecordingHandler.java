package dev.peregrine.broadcast;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/** Turns a reader's callbacks into value events: records as "r <position> <first long of payload or -1>". */
final class RecordingHandler implements BroadcastHandler {
    final List<String> events = new ArrayList<>();
    final List<Long> values = new ArrayList<>();

    @Override
    public void onRecord(final MemorySegment buffer, final long offset, final int length, final long position) {
        final long value = length >= 8 ? buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset) : -1;
        values.add(value);
        events.add("r " + position + " " + value);
    }

    @Override
    public void onJoined(final long startPosition) {
        events.add("joined " + startPosition);
    }

    @Override
    public void onLapped(final long missed, final long resumePosition) {
        events.add("lapped " + missed + " " + resumePosition);
    }

    @Override
    public void onEvicted(final String reason) {
        events.add("evicted " + reason);
    }

    @Override
    public void onWriterGone(final String reason) {
        events.add("writer gone " + reason);
    }

    @Override
    public void onFailed(final String reason) {
        events.add("failed " + reason);
    }

    List<String> take() {
        final List<String> taken = new ArrayList<>(events);
        events.clear();
        return taken;
    }
}
