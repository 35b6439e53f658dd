/**
 * Live counters that another process can read: each Peregrine process keeps its counters in one
 * memory-mapped file ({@link dev.peregrine.counters.CountersDescriptor}, layout version 1), written lock-free
 * by the thread that owns each counter and read, without disturbing it, by a
 * {@link dev.peregrine.counters.CountersReader} (as {@code ./peregrine stat} does).
 *
 * <p>Reactors take the process-wide {@link dev.peregrine.counters.CountersManager} and hand it to the
 * transports made on them; the file lives in
 * {@link dev.peregrine.counters.CountersDirectory#defaultDirectory()} (or {@code -Dperegrine.counters.dir}),
 * is removed when the last reactor closes or the JVM exits, and is switched off (counters in memory only)
 * with {@code -Dperegrine.counters=off}.
 *
 * <p>Neighbours (other users, other containers sharing {@code /dev/shm}) can neither delete nor forge a file:
 * <ul>
 *   <li>The directory is used only if it is no symbolic link, is owned by this process's user and has mode 0700;
 *       a missing one is made with that mode in one step. Otherwise one line on standard error names it and what
 *       is wrong, and the process runs without a counters file. Files are 0600.</li>
 *   <li>A file is named {@code <pid>-<start ms>-<random>.counters}: no two processes collide, whatever their pid
 *       namespaces.</li>
 *   <li>A file is made under a temporary name, locked with an exclusive {@code flock(2)} (through the FFM API),
 *       and renamed into place; its owner keeps the lock until it removes the file, and removes only the inode it
 *       made. A file whose lock another process can take is dead and is removed by the next start or
 *       {@code ./peregrine stat}; one whose lock is held is alive.</li>
 *   <li>Where {@code flock} cannot be called (not Linux, or native access denied) files are made the same way
 *       without the lock, and liveness falls back to the pid and start time in the header, which is right within
 *       one pid namespace only.</li>
 * </ul>
 *
 * <p>Threading: a {@link dev.peregrine.counters.Counter} is written by one thread; allocation and freeing are
 * thread-safe; a reader is used by one thread.
 */
package dev.peregrine.counters;
