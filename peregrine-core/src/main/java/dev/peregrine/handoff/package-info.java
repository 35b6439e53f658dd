/**
 * Hand-over between the reactor thread and other threads, without garbage.
 *
 * <p>{@link dev.peregrine.handoff.ReactorCommandRing}: many producer threads encode commands (send, close, abort) for
 * the channels of the transports registered with it into off-heap memory; the reactor drains them at the start of
 * each duty cycle into the transports' own methods. Its layout is {@link dev.peregrine.handoff.CommandRingDescriptor}.
 *
 * <p>Threading: the producer methods of a ring are safe from any thread and allocate nothing; registration, the drain
 * and closing belong to the reactor thread. The transports themselves stay reactor-thread-only: this ring is the way
 * in to them from other threads.
 */
package dev.peregrine.handoff;
