/**
 * Asynchronous logging without garbage: CoralReactor's two threads and a lock-free queue.
 *
 * <p>{@link dev.peregrine.log.AsyncLogger}: producers on any thread (the reactor thread among them) encode records
 * (timestamp, level, event, channel id, two longs, a payload truncated to a maximum) into an off-heap ring, many
 * producers to one consumer, laid out by {@link dev.peregrine.log.LogRingDescriptor}. The logger's own thread formats
 * them to lines of text and appends them to a file. {@link dev.peregrine.log.LoggingHandler} logs every event (and,
 * if asked, every message) of a transport and forwards it to the application's handler.
 *
 * <p>Threading:
 * <ul>
 *   <li>every method of {@code AsyncLogger} is safe from any thread; none blocks or spins (a full ring drops the
 *       record and counts it), and none but {@code open} and {@code close} allocates;</li>
 *   <li>the logger's own thread is the only consumer; it idles with a yielding, then parking, strategy;</li>
 *   <li>a {@code LoggingHandler} runs on its transport's thread, as any handler.</li>
 * </ul>
 */
package dev.peregrine.log;
