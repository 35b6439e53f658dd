/**
 * {@code bench handoff}: one thread handing messages to another through Peregrine's rings
 * ({@link dev.peregrine.bench.handoff.PeregrineSpscHandoff}, {@link dev.peregrine.bench.handoff.PeregrineMpscHandoff})
 * and the peers of {@code dev.peregrine.peers.handoff}, every one driven by the same loops
 * ({@link dev.peregrine.bench.handoff.HandoffRunner}) and shown in one table
 * ({@link dev.peregrine.bench.handoff.HandoffTable}).
 *
 * <p>Threading: a run starts its producer and consumer threads, waits for them to end and closes the queue; the
 * loops allocate nothing per message. Runs are made one after another, by one thread.
 */
package dev.peregrine.bench.handoff;
