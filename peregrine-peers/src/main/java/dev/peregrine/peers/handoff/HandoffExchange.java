package dev.peregrine.peers.handoff;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Hands an exact count of messages through a queue and returns what the consumer received: the check every
 * implementation passes (each producer's messages arrive once each, in its order, nothing else arrives). Each
 * producer runs on a thread of its own and the consumer on the calling thread; waiting threads yield.
 */
public final class HandoffExchange {
    private HandoffExchange() {
    }

    /**
     * Runs the exchange.
     *
     * @param queue an open queue whose setup has {@code producers} producers
     * @param producers how many producer threads, each with its index
     * @param perProducer messages each producer sends, sequences 0 up, tagged with its index
     * @param batched whether producers use {@link HandoffProducer#offerBatch} (up to 100 at a time) rather than
     *     {@link HandoffProducer#offer} (timestamp = the sequence + 1)
     * @param timeoutSeconds how long a hung exchange may take before it fails
     * @return the tagged sequences received, in the order received
     * @throws IllegalStateException if it hung, if a producer threw, or if a timestamp did not travel with its message
     */
    public static long[] run(final HandoffQueue queue, final int producers, final int perProducer,
                             final boolean batched, final long timeoutSeconds) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        final Throwable[] failures = new Throwable[producers];
        final Thread[] threads = new Thread[producers];
        for (int p = 0; p < producers; p++) {
            final int index = p;
            final HandoffProducer producer = queue.producer(index);
            threads[p] = new Thread(() -> {
                try {
                    send(producer, index, perProducer, batched, deadline);
                } catch (final RuntimeException | Error ex) {
                    failures[index] = ex;
                }
            }, "exchange-producer-" + p);
            threads[p].setDaemon(true);
            threads[p].start();
        }
        final long[] received = new long[producers * perProducer + 1];
        final int[] count = {0};
        final String[] wrongStamp = {null};
        final HandoffConsumer consumer = queue.consumer();
        final HandoffSink sink = (sequence, timestampNs) -> {
            if (count[0] < received.length) {
                received[count[0]] = sequence;
            }
            count[0]++;
            final long expectedStamp = batched ? 0 : HandoffMessage.sequenceOf(sequence) + 1;
            if (timestampNs != expectedStamp && wrongStamp[0] == null) {
                wrongStamp[0] = "message " + Long.toHexString(sequence) + " carried timestamp " + timestampNs
                    + " instead of " + expectedStamp;
            }
        };
        int idlePollsAfterEnd = 0;
        while (count[0] < producers * perProducer || alive(threads)) {
            final boolean ended = !alive(threads); // read before the poll: what they sent before ending is in
            if (consumer.poll(sink) == 0) {
                // a poll may deliver nothing and still move past padding at the wrap: two empty ones in a row
                // after every producer ended mean nothing more will come
                if (ended && ++idlePollsAfterEnd == 2) {
                    break;
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("the exchange hung: received=" + count[0] + " of "
                        + producers * perProducer);
                }
                Thread.yield();
            } else {
                idlePollsAfterEnd = 0;
            }
        }
        join(threads);
        consumer.poll(sink); // every producer has ended: anything extra is in the queue now, and shows
        for (final Throwable failure : failures) {
            if (failure != null) {
                throw new IllegalStateException("a producer threw", failure);
            }
        }
        if (wrongStamp[0] != null) {
            throw new IllegalStateException(wrongStamp[0]);
        }
        return Arrays.copyOf(received, Math.min(count[0], received.length));
    }

    private static void send(final HandoffProducer producer, final int index, final int count, final boolean batched,
                             final long deadline) {
        long sequence = 0;
        while (sequence < count) {
            final int taken = batched
                ? producer.offerBatch(HandoffMessage.tag(index, sequence), (int)Math.min(100, count - sequence))
                : producer.offer(HandoffMessage.tag(index, sequence), sequence + 1) ? 1 : 0;
            if (taken == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("producer " + index + " hung at sequence=" + sequence);
                }
                Thread.yield();
            }
            sequence += taken;
        }
    }

    private static boolean alive(final Thread[] threads) {
        for (final Thread thread : threads) {
            if (thread.isAlive()) {
                return true;
            }
        }
        return false;
    }

    private static void join(final Thread[] threads) {
        try {
            for (final Thread thread : threads) {
                thread.join();
            }
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", ex);
        }
    }

    /**
     * Each producer's sequences, in the order they were received.
     *
     * @param received from {@link #run}
     * @param producer a producer's index
     * @return its sequences
     */
    public static long[] of(final long[] received, final int producer) {
        return Arrays.stream(received).filter(s -> HandoffMessage.producerOf(s) == producer)
            .map(HandoffMessage::sequenceOf).toArray();
    }
}
