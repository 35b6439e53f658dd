package dev.peregrine.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MpscArrayQueueTest {
    @Test
    void shouldBeFifoAndBounded() {
        final MpscArrayQueue<Integer> queue = new MpscArrayQueue<>(3);
        assertThat(queue.capacity()).isEqualTo(4);
        for (int i = 0; i < 4; i++) {
            assertThat(queue.offer(i)).isTrue();
        }
        assertThat(queue.offer(99)).isFalse();
        assertThat(queue.size()).isEqualTo(4);
        assertThat(queue.poll()).isEqualTo(0);
        assertThat(queue.offer(4)).isTrue();
        final List<Integer> drained = new ArrayList<>();
        assertThat(queue.drain(drained::add, 10)).isEqualTo(4);
        assertThat(drained).containsExactly(1, 2, 3, 4);
        assertThat(queue.poll()).isNull();
    }

    @Test
    void shouldRejectNullAndBadCapacity() {
        assertThatThrownBy(() -> new MpscArrayQueue<Integer>(1)).hasMessageContaining("capacity=1");
        assertThatThrownBy(() -> new MpscArrayQueue<Integer>(8).offer(null)).hasMessageContaining("element=null");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldDeliverEveryElementOfEveryProducerExactlyOnceInProducerOrder() throws Exception {
        final int producers = 3;
        final int perProducer = 200_000;
        final MpscArrayQueue<long[]> queue = new MpscArrayQueue<>(64);
        final CountDownLatch start = new CountDownLatch(1);
        final List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            final int producer = p;
            final Thread thread = new Thread(() -> {
                try {
                    start.await();
                } catch (final InterruptedException ex) {
                    return;
                }
                for (int i = 0; i < perProducer; i++) {
                    final long[] element = {producer, i};
                    while (!queue.offer(element)) {
                        Thread.onSpinWait();
                    }
                }
            });
            thread.start();
            threads.add(thread);
        }
        start.countDown();
        final long[] next = new long[producers];
        int received = 0;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(50);
        while (received < producers * perProducer && System.nanoTime() < deadline) {
            final long[] element = queue.poll();
            if (element == null) {
                Thread.onSpinWait();
                continue;
            }
            final int producer = (int)element[0];
            assertThat(element[1]).as("producer %d order", producer).isEqualTo(next[producer]);
            next[producer]++;
            received++;
        }
        for (final Thread thread : threads) {
            thread.join(10_000);
        }
        assertThat(received).isEqualTo(producers * perProducer);
        assertThat(queue.poll()).isNull();
    }

    @Test
    void shouldAnswerNullInsteadOfWaitingForAClaimedUnpublishedSlotAndKeepFifo() {
        final MpscArrayQueue<String> queue = new MpscArrayQueue<>(8);
        final long claimedFirst = queue.claim(); // a producer preempted between its claim and its store
        assertThat(queue.offer("second")).isTrue();
        // with the old spin this call never returned (the test's executor gives up after 10 s)
        final String polled = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
            java.time.Duration.ofSeconds(10), () -> queue.poll());
        assertThat(polled).isNull();
        assertThat(queue.size()).isEqualTo(2);
        queue.publish(claimedFirst, "first");
        assertThat(queue.poll()).isEqualTo("first");
        assertThat(queue.poll()).isEqualTo("second");
        assertThat(queue.poll()).isNull();
    }
}
