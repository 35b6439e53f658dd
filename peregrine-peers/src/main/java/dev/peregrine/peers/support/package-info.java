/**
 * Pieces the peer adapters share: the TCP frame layout every TCP peer uses, the idle strategy chosen from
 * {@link dev.peregrine.peers.BenchConfig#busySpin()}, and thread shutdown with a bounded wait.
 *
 * <p>Threading: stateless helpers; each returned object belongs to the thread that uses it.
 */
package dev.peregrine.peers.support;
