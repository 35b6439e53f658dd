/**
 * Shared-memory channels between processes through memory-mapped single-producer single-consumer rings.
 *
 * <p>The core: {@link dev.peregrine.shm.ShmRingDescriptor} (layout version 2 of a ring file),
 * {@link dev.peregrine.shm.ShmRingWriter} (zero-copy claim/commit/abort, bounded by bytes and by messages in
 * flight, {@code BACK_PRESSURED} when full) and {@link dev.peregrine.shm.ShmRingReader} (views
 * {@code (segment, offset, length)}), with wait strategies for an empty ring: busy-spin, back-off and futex
 * ({@link dev.peregrine.shm.ShmFutex}). Two processes meet through a Unix domain socket (rendezvous version
 * 1): the server creates one ring file per direction (mode 0600, in {@code /dev/shm} where present), hands their
 * names over, both map and check them, and the files are removed once both have mapped them. The socket stays
 * open as the liveness signal: a peer that dies, even by {@code kill -9}, is seen at once, and what it wrote
 * before is delivered before the close is reported.
 *
 * <p>Two APIs on that core: {@link dev.peregrine.shm.ShmTransport}, a {@link dev.peregrine.channel.Transport} on
 * the reactor with the same events as TCP, and the blocking, socket-like {@link dev.peregrine.shm.ShmServerSocket}
 * and {@link dev.peregrine.shm.ShmSocket}.
 *
 * <p>Threading: a ring writer is owned by one thread and a ring reader by one (other) thread or process;
 * {@link dev.peregrine.shm.ShmTransport} is not thread-safe (one reactor thread); a
 * {@link dev.peregrine.shm.ShmSocket} has one reading and one writing thread, as a socket does.
 */
package dev.peregrine.shm;
