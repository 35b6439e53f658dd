/**
 * The reactor: one thread driving any number of channels, timers and pollables through a duty cycle.
 *
 * <p>Each cycle reads the clock once, drains work handed over by other threads, polls the pollables added
 * with {@link dev.peregrine.reactor.Reactor#addAtCycleStart}, selects ready
 * channels with {@code Selector.selectNow(Consumer)} (no selected-key set, no allocation), fires
 * due timers, polls every {@link dev.peregrine.reactor.Pollable} and hands the amount of work done to an
 * {@link dev.peregrine.reactor.IdleStrategy}.
 *
 * <p>Threading: a {@link dev.peregrine.reactor.Reactor} is confined to one thread, the one that runs
 * {@link dev.peregrine.reactor.Reactor#doWork()} (its own, after {@link dev.peregrine.reactor.Reactor#start()},
 * or the caller's). The only methods safe from other threads are
 * {@link dev.peregrine.reactor.Reactor#execute(Runnable)}, {@link dev.peregrine.reactor.Reactor#wakeUp()} and
 * {@link dev.peregrine.reactor.Reactor#close()}. To hand the reactor's transports commands from other threads
 * without garbage, use a {@link dev.peregrine.handoff.ReactorCommandRing} (it drains at the cycle's start and wakes a
 * reactor asleep in a blocking select); {@code execute} costs a {@code Runnable} per hand-over.
 */
package dev.peregrine.reactor;
