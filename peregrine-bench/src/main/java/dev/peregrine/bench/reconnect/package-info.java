/**
 * {@code bench reconnect}: a SoupBinTCP stream from a Peregrine server to a Peregrine client, paced, while the
 * connection is cut by aborts from either side (or the server process is killed and restarted on its file-backed
 * store); every message is checked exactly once, in order, and the time from each cut to the first message after it
 * is recorded.
 *
 * <p>Threading: the server and the client each run on a reactor thread of their own; they share only the
 * {@link dev.peregrine.bench.reconnect.CutSchedule} (volatile fields, one writer each) and the results, read after
 * both threads have ended.
 */
package dev.peregrine.bench.reconnect;
