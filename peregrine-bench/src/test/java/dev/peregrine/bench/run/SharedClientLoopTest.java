package dev.peregrine.bench.run;

import dev.peregrine.peers.EchoReadiness;
import dev.peregrine.peers.PingClient;
import dev.peregrine.testkit.AllocationMeter;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(60)
class SharedClientLoopTest {
    /** Answers each message at once, to itself or to another client (cross-wired), and remembers what it sent. */
    private static final class ImmediateEcho implements PingClient {
        private final long[] ring;
        private long head;
        private long tail;
        ImmediateEcho answerTo = this;
        final List<Long> sent = new ArrayList<>();
        boolean recording = true;
        long dropSequence = -1;
        /** Answer only messages numbered by a multiple of this (low 32 bits), as a responder told --respond-every. */
        long every = 1;
        /** A message to answer although it is not a multiple of {@link #every}, or to answer twice if it is. */
        long extraSequence = -1;

        ImmediateEcho() {
            this(1 << 16);
        }

        /** With room for {@code capacity} echoes, a power of two. */
        ImmediateEcho(final int capacity) {
            this.ring = new long[capacity];
        }

        @Override
        public void send(final long sequence) {
            if (recording) {
                sent.add(sequence);
            }
            if (sequence != dropSequence && (sequence & 0xFFFF_FFFFL) % every == 0) {
                answerTo.ring[(int)(answerTo.tail++ & (ring.length - 1))] = sequence;
            }
            if (sequence == extraSequence) {
                answerTo.ring[(int)(answerTo.tail++ & (ring.length - 1))] = sequence;
            }
        }

        @Override
        public long poll() {
            return head == tail ? -1 : ring[(int)(head++ & (ring.length - 1))];
        }

        @Override
        public void close() {
        }
    }

    /**
     * Clients on one simulated event loop, as Peregrine TCP's group: an echo arrives {@code delay} cycles of the loop
     * after its message was sent. A cycle runs in {@link #pollReady}, or in a member's poll that finds nothing and
     * saw no cycle run since it last looked. The group names the members an echo reached in each cycle.
     */
    private static final class DelayedGroup implements EchoReadiness {
        private static final int IN_FLIGHT = 1 << 16;
        final Member[] members;
        private final int delay;
        private final long[] flightSequence = new long[IN_FLIGHT];
        private final int[] flightMember = new int[IN_FLIGHT];
        private final long[] flightDue = new long[IN_FLIGHT];
        private long flightHead;
        private long flightTail;
        private final int[] readyList;
        private final boolean[] readyListed;
        private int readyCount;
        private long cycles;
        /** Whether {@link PingClient#readiness()} names this group (false: the clients hide it). */
        private final boolean named;

        DelayedGroup(final int n, final int delay, final boolean named) {
            this.delay = delay;
            this.named = named;
            this.members = new Member[n];
            this.readyList = new int[n];
            this.readyListed = new boolean[n];
            for (int k = 0; k < n; k++) {
                members[k] = new Member(k);
            }
        }

        private void cycle() {
            cycles++;
            while (flightHead < flightTail && flightDue[(int)(flightHead & (IN_FLIGHT - 1))] <= cycles) {
                final int at = (int)(flightHead++ & (IN_FLIGHT - 1));
                final int k = flightMember[at];
                members[k].echoes[(int)(members[k].tail++ & 15)] = flightSequence[at];
                if (!readyListed[k]) {
                    readyListed[k] = true;
                    readyList[readyCount++] = k;
                }
            }
        }

        @Override
        public int pollReady(final int[] ready) {
            cycle();
            final int n = readyCount;
            for (int i = 0; i < n; i++) {
                ready[i] = readyList[i];
                readyListed[readyList[i]] = false;
            }
            readyCount = 0;
            return n;
        }

        @Override
        public int indexOf(final PingClient client) {
            return client instanceof Member member ? member.index : -1;
        }

        @Override
        public int size() {
            return members.length;
        }

        final class Member implements PingClient {
            final int index;
            final long[] echoes = new long[16];
            long head;
            long tail;
            private long seenCycle = -1;

            Member(final int index) {
                this.index = index;
            }

            @Override
            public void send(final long sequence) {
                final int at = (int)(flightTail++ & (IN_FLIGHT - 1));
                flightSequence[at] = sequence;
                flightMember[at] = index;
                flightDue[at] = cycles + delay;
            }

            @Override
            public long poll() {
                if (head == tail) {
                    if (seenCycle == cycles) {
                        cycle();
                    }
                    seenCycle = cycles;
                    if (head == tail) {
                        return -1;
                    }
                }
                return echoes[(int)(head++ & 15)];
            }

            @Override
            public EchoReadiness readiness() {
                return named ? DelayedGroup.this : null;
            }

            @Override
            public void close() {
            }
        }
    }

    private static ImmediateEcho[] clients(final int n) {
        final ImmediateEcho[] clients = new ImmediateEcho[n];
        for (int k = 0; k < n; k++) {
            clients[k] = new ImmediateEcho();
        }
        return clients;
    }

    private static Histogram[] histograms(final int n) {
        final Histogram[] histograms = new Histogram[n];
        for (int k = 0; k < n; k++) {
            histograms[k] = PingPongLoop.newHistogram();
        }
        return histograms;
    }

    @Test
    void shouldKeepEachClientOnItsOwnScheduleAndCountOverTheSameWindow() {
        // five clients at five rates, each sending what its rate gives in 0.2 s: one window, counts in proportion
        final long[] rates = {1000, 2000, 3000, 4000, 5000};
        final long[] counts = {200, 400, 600, 800, 1000};
        final ImmediateEcho[] clients = clients(5);
        final SharedClientLoop loop = new SharedClientLoop(clients, rates, 1000, null, false, false);
        final Histogram[] histograms = histograms(5);

        final long completed = loop.run(7, counts, histograms, 0);

        assertThat(completed).isEqualTo(3000);
        for (int k = 0; k < 5; k++) {
            assertThat(loop.completed(k)).isEqualTo(counts[k]);
            assertThat(histograms[k].getTotalCount()).as("client %d's latencies", k).isEqualTo(counts[k]);
            final List<Long> expected = new ArrayList<>();
            for (long n = 7; n < 7 + counts[k]; n++) {
                expected.add((long)k << 32 | n);
            }
            assertThat(clients[k].sent).as("client %d's sequences", k).isEqualTo(expected);
            // the schedule, not the clock: message n is due n intervals of this client's rate after its first
            final double intervalNs = 1e9 / rates[k];
            for (int n = 1; n < counts[k]; n++) {
                assertThat((double)(loop.intendedSendNs(k, n) - loop.intendedSendNs(k, 0)))
                    .isCloseTo(n * intervalNs, org.assertj.core.data.Offset.offset(1.0));
            }
        }
        // staggered starts: client k begins k/5 of its interval after client 0 began
        for (int k = 1; k < 5; k++) {
            final double stagger = 1e9 / rates[k] * k / 5;
            assertThat((double)(loop.intendedSendNs(k, 0) - loop.intendedSendNs(0, 0)))
                .isCloseTo(stagger, org.assertj.core.data.Offset.offset(1.0));
        }
    }

    @Test
    void shouldFailWhenAnEchoReachesAnotherClient() {
        final ImmediateEcho[] clients = clients(3);
        clients[2].answerTo = clients[1]; // client 2's echoes cross to client 1
        final SharedClientLoop loop = new SharedClientLoop(clients, new long[] {100_000, 100_000, 100_000}, 100, null,
            false, false);

        assertThatThrownBy(() -> loop.run(0, 100, histograms(3), 0))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageStartingWith("client 1: echo out of order: expected sequence=")
            .hasMessageContaining("of client 2");
    }

    @Test
    void shouldRecordOnlyTheAnsweredMessagesWhenTheResponderAnswersEveryTenth() {
        final ImmediateEcho[] clients = clients(3);
        for (final ImmediateEcho client : clients) {
            client.every = 10;
        }
        final long[] rates = {100_000, 200_000, 300_000};
        final SharedClientLoop loop = new SharedClientLoop(clients, rates, 1000, null, false, false, 10);
        final Histogram[] histograms = histograms(3);

        // numbers 5 .. 1004 of each client: 10, 20, ..., 1000 are answered, 100 of them
        assertThat(loop.run(5, 1000, histograms, 0)).as("messages completed, answered or not").isEqualTo(3000);

        for (int k = 0; k < 3; k++) {
            assertThat(loop.completed(k)).isEqualTo(1000);
            assertThat(loop.sent(k)).isEqualTo(1000);
            assertThat(clients[k].sent).hasSize(1000);
            assertThat(histograms[k].getTotalCount()).as("client %d's latencies", k).isEqualTo(100);
            // sent over the time it took from its first intended send: never more than the schedule allows
            assertThat(loop.sentRate(k)).as("client %d", k).isPositive().isLessThanOrEqualTo(rates[k]);
        }
    }

    @Test
    void shouldFailWhenAnAnswerIsMissingDuplicatedOrOfAMessageNotToBeAnswered() {
        final long[] rates = {100_000};

        final ImmediateEcho[] missing = clients(1);
        missing[0].every = 10;
        missing[0].dropSequence = 20;
        assertThatThrownBy(() -> new SharedClientLoop(missing, rates, 100, null, false, false, 10).run(0, 100, null, 0))
            .hasMessage("client 0: echo out of order: expected sequence=20 got=30");

        final ImmediateEcho[] duplicated = clients(1);
        duplicated[0].every = 10;
        duplicated[0].extraSequence = 20;
        assertThatThrownBy(() -> new SharedClientLoop(duplicated, rates, 100, null, false, false, 10).run(0, 100, null, 0))
            .hasMessage("client 0: echo out of order: expected sequence=30 got=20");

        final ImmediateEcho[] unanswered = clients(1);
        unanswered[0].every = 10;
        unanswered[0].extraSequence = 25;
        assertThatThrownBy(() -> new SharedClientLoop(unanswered, rates, 100, null, false, false, 10).run(0, 100, null, 0))
            .hasMessage("client 0: echo out of order: expected sequence=30 got=25");

        // on a lossy transport too: an answer to a message not to be answered is no loss, it is wrong
        final ImmediateEcho[] lossy = clients(1);
        lossy[0].every = 10;
        lossy[0].extraSequence = 25;
        assertThatThrownBy(() -> new SharedClientLoop(lossy, rates, 100, null, false, true, 10).run(0, 100, null, 0))
            .hasMessage("client 0: echo out of order: expected sequence=30 got=25");
    }

    @Test
    void shouldCountAMissingEchoLostOnlyOnALossyTransport() {
        final ImmediateEcho[] clients = clients(2);
        clients[1].dropSequence = SharedClientLoop.sequence(1, 40);
        final long[] rates = {200_000, 200_000};

        final SharedClientLoop lossy = new SharedClientLoop(clients, rates, 100, null, false, true);
        assertThat(lossy.run(0, 100, histograms(2), 0)).isEqualTo(200);
        assertThat(lossy.lost()).isEqualTo(1);

        final SharedClientLoop reliable = new SharedClientLoop(clients(2), rates, 100, null, false, false);
        final ImmediateEcho[] again = clients(2);
        again[1].dropSequence = SharedClientLoop.sequence(1, 40);
        final SharedClientLoop strict = new SharedClientLoop(again, rates, 100, null, false, false);
        assertThat(reliable.run(0, 100, null, 0)).isEqualTo(200);
        assertThatThrownBy(() -> strict.run(0, 100, null, 0))
            .hasMessage("client 1: echo out of order: expected sequence=40 got=41");
    }

    @Test
    void shouldAllocateNothingPerMessageOnceWarm() {
        final ImmediateEcho[] clients = clients(5);
        for (final ImmediateEcho client : clients) {
            client.recording = false;
        }
        final SharedClientLoop loop = new SharedClientLoop(clients, new long[] {5_000_000, 4_000_000, 3_000_000,
            2_000_000, 1_000_000}, 1000, null, true, false);
        final Histogram[] histograms = histograms(5);

        // zero tolerance once the JIT has settled: the first whole set of ten windows that allocates nothing, at most 5
        final AllocationMeter.Windows measured = AllocationMeter.firstCleanSet(200, 100, 10, 5,
            () -> loop.run(0, 1000, histograms, 0));

        assertThat(measured.totalBytes()).as("bytes in the last set of %d (windows of 100 runs of 5 x 1000 messages)",
            measured.sets()).isZero();
    }

    @Test
    void shouldPollOnlyTheClientsThatSentOrAwaitAnEchoWhateverTheirNumber() {
        // a thousand clients at 200 msg/s each, 4 messages each: 4 000 messages over some 20 ms, in which a loop that
        // polled every client in every pass would make tens of passes of a thousand polls, warm or cold
        final int n = 1000;
        final ImmediateEcho[] clients = new ImmediateEcho[n];
        for (int k = 0; k < n; k++) {
            clients[k] = new ImmediateEcho(16); // a thousand of the default 512 KiB rings would fill the test's heap
        }
        final long[] rates = new long[n];
        java.util.Arrays.fill(rates, 200);
        final SharedClientLoop loop = new SharedClientLoop(clients, rates, 4, null, true, false);
        assertThat(loop.run(0, 4, null, 0)).as("warm-up").isEqualTo(4 * n);
        final long before = loop.polls();

        assertThat(loop.run(4, 4, null, 0)).isEqualTo(4 * n);

        // each echo waits as soon as its message is sent: a client's turn polls once per echo and once more to find
        // none, so at most two polls a message (fewer when a late client sends two at once)
        assertThat(loop.polls() - before).isBetween(4L * n + 1, 2L * 4 * n);
    }

    @Test
    void shouldPollOnlyTheClientsTheirGroupNamesWhenMostAwaitAnEcho() {
        // a thousand clients whose echoes come 200 cycles of their loop after the message: most clients await one at
        // any time, as when the responder has fallen behind. Asked which of them an echo reached, a pass polls those
        // only: at most two polls a message (each echo, then one that finds none), whatever the number awaiting
        final int n = 1000;
        final long[] rates = new long[n];
        java.util.Arrays.fill(rates, 200);
        final DelayedGroup group = new DelayedGroup(n, 200, true);
        final SharedClientLoop loop = new SharedClientLoop(group.members, rates, 2, null, true, false);
        assertThat(loop.pollsReadyOnly()).isTrue();
        final Histogram[] histograms = histograms(n);

        assertThat(loop.run(0, 2, histograms, 0)).isEqualTo(2 * n);

        assertThat(loop.polls()).isBetween(2L * n + 1, 2L * 2 * n);
        for (int k = 0; k < n; k++) {
            assertThat(histograms[k].getTotalCount()).as("client %d's latencies", k).isEqualTo(2);
        }
    }

    @Test
    void shouldPollEveryClientAwaitingAnEchoWhenItsGroupDoesNotSayWhichToPoll() {
        // the same clients, their group hidden: each pass polls every client that awaits an echo, and a pass runs at
        // most a cycle or two of their loop, so each echo's client is polled in the tens of times before it comes
        final int n = 1000;
        final long[] rates = new long[n];
        java.util.Arrays.fill(rates, 200);
        final DelayedGroup group = new DelayedGroup(n, 200, false);
        final SharedClientLoop loop = new SharedClientLoop(group.members, rates, 2, null, true, false);
        assertThat(loop.pollsReadyOnly()).isFalse();

        assertThat(loop.run(0, 2, null, 0)).isEqualTo(2 * n);

        assertThat(loop.polls()).isGreaterThan(20L * 2 * n);
    }
}
