package dev.peregrine.reactor;

/**
 * A monotonic nanosecond clock; injectable so that tests can drive time.
 */
@FunctionalInterface
public interface NanoClock {
    /** The system's monotonic clock, {@link System#nanoTime()}. */
    NanoClock SYSTEM = System::nanoTime;

    /**
     * Reads the clock.
     *
     * @return nanoseconds from an arbitrary origin
     */
    long nanoTime();
}
