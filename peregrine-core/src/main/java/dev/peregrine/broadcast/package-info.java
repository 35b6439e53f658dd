/**
 * One writer, many readers on one host: a broadcast log in a memory-mapped file (layout version 1,
 * {@link dev.peregrine.broadcast.BroadcastDescriptor}).
 *
 * <ul>
 *   <li>{@link dev.peregrine.broadcast.BroadcastWriter} creates or opens a log and offers records; one writer at a
 *       time, by a lock.</li>
 *   <li>{@link dev.peregrine.broadcast.BroadcastReader} attaches by name, starting live or from the oldest record,
 *       and polls; {@link dev.peregrine.broadcast.BroadcastPollable} runs one on the reactor,
 *       {@link dev.peregrine.broadcast.BroadcastBlockingReader} on a thread of its own.</li>
 *   <li>{@link dev.peregrine.broadcast.BroadcastPolicy#BLOCK}: the writer waits for the slowest live reader, evicts
 *       dead or idle ones; zero-copy. {@link dev.peregrine.broadcast.BroadcastPolicy#DROP}: the writer never waits;
 *       a lapped reader learns the exact count it missed; records are copied and checked.</li>
 * </ul>
 *
 * <p>Threading: a writer is owned by one thread, a reader by one thread (the reactor's for a pollable). Writer and
 * readers may be in any processes of the same user; they share only the file, and the lock files beside it.
 */
package dev.peregrine.broadcast;
