package dev.peregrine.internal.jfr;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * An in-process flight recording of Peregrine's events only, read back with {@link RecordingFile} once
 * stopped: the way an operator's {@code jfr print} would see them.
 */
public final class FlightRecording implements AutoCloseable {
    /** Every event Peregrine defines. */
    public static final List<String> EVENTS = List.of("dev.peregrine.ChannelOpened", "dev.peregrine.ChannelClosed",
        "dev.peregrine.BackPressure", "dev.peregrine.FrameRejected", "dev.peregrine.MoldGapDetected",
        "dev.peregrine.MoldGapFilled", "dev.peregrine.MoldGapUnrecoverable", "dev.peregrine.ShmPeerLost",
        "dev.peregrine.LongDutyCycle");

    private final Recording recording = new Recording();
    private List<RecordedEvent> events;

    /** Starts recording every Peregrine event, with no threshold. */
    public FlightRecording() {
        for (final String name : EVENTS) {
            recording.enable(name).withoutThreshold();
        }
        recording.start();
    }

    /**
     * Stops the recording, dumps it to a file and reads the events back (once; later calls answer the same).
     *
     * @return the events, in the order the file holds them
     */
    public List<RecordedEvent> events() {
        if (events == null) {
            recording.stop();
            try {
                final Path file = Files.createTempFile("peregrine-", ".jfr");
                try {
                    recording.dump(file);
                    events = RecordingFile.readAllEvents(file);
                } finally {
                    Files.deleteIfExists(file);
                }
            } catch (final IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }
        return events;
    }

    /**
     * The events of one name (without the {@code dev.peregrine.} prefix), by start time.
     *
     * @param name say {@code ChannelClosed}
     * @return the events
     */
    public List<RecordedEvent> named(final String name) {
        return events().stream().filter(event -> event.getEventType().getName().equals("dev.peregrine." + name))
            .sorted(java.util.Comparator.comparing(RecordedEvent::getStartTime)).toList();
    }

    @Override
    public void close() {
        recording.close();
    }
}
