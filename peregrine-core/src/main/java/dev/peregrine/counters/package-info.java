/**
 * Live counters that another process can read: each Peregrine process keeps its counters in one
 * memory-mapped file ({@link dev.peregrine.counters.CountersDescriptor}, layout version 1), written lock-free
 * by the thread that owns each counter and read, without disturbing it, by a
 * {@link dev.peregrine.counters.CountersReader} (as {@code ./peregrine stat} does).
 *
 * <p>Reactors take the process-wide {@link dev.peregrine.counters.CountersManager} and hand it to the
 * transports made on them; the file is named by the process id, lives in
 * {@link dev.peregrine.counters.CountersDirectory#defaultDirectory()} (or {@code -Dperegrine.counters.dir}),
 * is removed when the last reactor closes or the JVM exits, and is switched off (counters in memory only)
 * with {@code -Dperegrine.counters=off}.
 *
 * <p>Threading: a {@link dev.peregrine.counters.Counter} is written by one thread; allocation and freeing are
 * thread-safe; a reader is used by one thread.
 */
package dev.peregrine.counters;
