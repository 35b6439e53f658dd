/**
 * {@code bench handoff}: one thread handing messages to another, the same way for every queue measured. A small
 * interface ({@link dev.peregrine.peers.handoff.HandoffImplementation}, which opens a
 * {@link dev.peregrine.peers.handoff.HandoffQueue} with its {@link dev.peregrine.peers.handoff.HandoffProducer}s and
 * one {@link dev.peregrine.peers.handoff.HandoffConsumer}) and its implementations for the peers: the LMAX Disruptor,
 * Agrona's {@code OneToOneRingBuffer} and {@code ManyToOneRingBuffer}, JCTools' {@code MpscArrayQueue} and
 * {@code java.util.concurrent.ArrayBlockingQueue}. Peregrine's own rings implement the same interface in the
 * benchmark module.
 *
 * <p>Every message is {@code size} bytes laid out by {@link dev.peregrine.peers.handoff.HandoffMessage}: a sequence
 * and a timestamp, then payload. Every producer copies all of its bytes into the queue's memory (or the pooled object
 * it hands over); every consumer reads the sequence and the timestamp.
 *
 * <p>Threading: a producer is used by one thread, the consumer by one other thread; the queue is opened and closed
 * by a third (the bench's), before the producers and consumer start and after they end. Nothing allocates on the
 * producers' or the consumer's thread in steady state, except where the queue itself does
 * ({@code ArrayBlockingQueue}'s lock, when contended), which the bench measures and shows.
 */
package dev.peregrine.peers.handoff;
