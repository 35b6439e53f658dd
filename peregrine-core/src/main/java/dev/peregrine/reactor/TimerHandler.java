package dev.peregrine.reactor;

/**
 * Called when a timer scheduled on a {@link TimerWheel} expires.
 */
@FunctionalInterface
public interface TimerHandler {
    /**
     * The timer expired; it is no longer scheduled.
     *
     * @param timerId the id returned when it was scheduled
     * @param cookie the value given when it was scheduled
     * @param nowNs the clock of this cycle
     */
    void onTimer(long timerId, long cookie, long nowNs);
}
