package dev.peregrine.testkit;

/**
 * The fault tests' way to make one handler fail once: a test arms a callback, and the handler calls
 * {@link #maybeThrow} from every callback; the armed one throws, once, with a message naming it.
 *
 * @param <C> what names a callback, usually an enum
 */
public final class ArmedFault<C> {
    private C armed;
    private int thrown;

    /**
     * Arms a callback: the next {@link #maybeThrow} for it throws.
     *
     * @param callback the callback to fail
     */
    public void arm(final C callback) {
        armed = callback;
    }

    /**
     * Throws if {@code callback} is armed, and disarms it.
     *
     * @param callback the callback being run
     * @throws IllegalStateException "thrown by the test from " and the callback, when armed
     */
    public void maybeThrow(final C callback) {
        if (callback.equals(armed)) {
            armed = null;
            thrown++;
            throw new IllegalStateException("thrown by the test from " + callback);
        }
    }

    /**
     * How many times {@link #maybeThrow} threw.
     *
     * @return the count
     */
    public int thrown() {
        return thrown;
    }
}
