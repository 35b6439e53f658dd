/**
 * {@code bench fanout}: one writer in the bench's JVM, each reader in a JVM of its own
 * ({@link dev.peregrine.bench.fanout.FanoutReaderChild}), through Peregrine's broadcast log, its one-to-one shm ring
 * and Aeron IPC ({@link dev.peregrine.bench.fanout.FanoutTransports}); a row is run by
 * {@link dev.peregrine.bench.fanout.FanoutRunner} and shown by {@link dev.peregrine.bench.fanout.FanoutTable}.
 *
 * <p>Threading: a run's writer sends on the calling thread; each reader process reads on its main thread; a thread
 * per reader process reads its stdout, and a scenario plays on a thread of its own so that the writer's thread
 * allocates nothing. The writer's and readers' loops allocate nothing per message (measured in every row).
 */
package dev.peregrine.bench.fanout;
