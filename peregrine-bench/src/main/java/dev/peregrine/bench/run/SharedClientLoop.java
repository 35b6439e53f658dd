package dev.peregrine.bench.run;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.EchoReadiness;
import dev.peregrine.peers.PingClient;
import org.HdrHistogram.Histogram;

import java.util.concurrent.TimeUnit;

/**
 * The measuring loop of several clients driven by one thread ({@code bench load}'s default topology): each
 * client keeps a send schedule of its own at its own rate, and each echo's latency is recorded, in that
 * client's histogram, from the <em>intended</em> send time of its message (coordinated omission corrected, as
 * in {@link PingPongLoop#atRate}). One pass of the loop reads the clock once, gives the clients whose sends are
 * due a turn, in the order they fell due (each sends what is due, all of it when it is behind, up to a bound), then
 * polls every client that sent in this pass or awaits an echo, until none of its echoes is waiting.
 *
 * <p>A pass costs what is due and what is in flight, not the number of clients: the sends wait in a heap ordered
 * by due time, and the clients with an echo outstanding in a list. A thousand clients at 100 messages a second
 * each cost a pass what ten clients at 10 000 do, so that the client side does not grow the latency it measures.
 *
 * <p>Clients that share one event loop and say which of them an echo reached ({@link EchoReadiness}, Peregrine
 * TCP's group) are not polled in turn: each pass runs their loop once and polls the clients it names. Without it,
 * a pass polls every client with an echo outstanding, and when the responder falls behind that is every client:
 * the client thread would then spend a pass's time on clients with nothing to read, and fall behind in turn. The
 * clients still awaiting an echo are checked for the timeout every 1024 passes, from the loop's own arrays.
 *
 * <p>Client {@code k} carries {@code k} in the high 32 bits of its sequences ({@link #sequence}), so an echo
 * that reached the wrong client is an error, as is a missing or out-of-order one. For a lossy transport a
 * missing echo is counted {@linkplain #lost() lost} instead, as {@link PingPongLoop} does. The schedules are
 * staggered: client {@code k} of {@code n} starts {@code k/n} of its interval after the first, so that the
 * clients' messages do not all fall due in the same instant.
 *
 * <p>With a period {@code N} above 1 ({@code --respond-every}) the responder answers only the messages whose
 * number is a multiple of {@code N} ({@link BenchConfig#answers}): every client still sends every message on its
 * schedule, awaits an answer for those only, in order and each exactly once, and records their latency from
 * their intended send time, so a sender that falls behind shows as latency. Each client's sent messages and
 * the time of its last send give the rate it {@linkplain #sentRate sustained}.
 *
 * <p>Nothing here allocates per message: a message's intended send time is its schedule, computed again when
 * its answer comes.
 */
public final class SharedClientLoop {
    /** The most sends one client makes in one turn when it is behind its schedule. */
    static final int MAX_SENDS_PER_TURN = 64;

    private static final int CLOCK_CHECK_MASK = 1023;

    private final PingClient[] clients;
    private final double[] intervalNs;
    private final int capacity;
    private final int respondEvery;
    private final long[] sent;
    private final long[] lastSendNs;
    private final long[] received;
    private final long[] limit;
    private final long[] lastEchoNs;
    private final long[] startNs;
    private final long[] counts;
    /** The clients with a send still to make, a binary min-heap on {@link #heapDue}. */
    private final int[] heapClient;
    private final long[] heapDue;
    private int heapSize;
    /** The clients to poll in each pass: those that sent in it or await an echo. */
    private final int[] polled;
    /** Where each listed client is in {@link #polled}. */
    private final int[] position;
    private final boolean[] listed;
    /** The clients' common group if they have one that names the clients an echo reached, else null. */
    private final EchoReadiness readiness;
    /** The loop's index of each of the group's clients, and the group's answer of a pass. */
    private final int[] loopIndex;
    private final int[] readyIndexes;
    private int polledCount;
    /** Clients of the current run with echoes still to come. */
    private int active;
    private final boolean[] finished;
    /** Polls made so far, for tests: they grow with the messages, not with the clients. */
    private long polls;
    private final Progress progress;
    private final boolean spin;
    private final boolean lossy;
    private long lost;
    private volatile boolean stopRequested;

    /**
     * Creates the loop.
     *
     * @param clients the connected clients, all used only by the thread that calls {@link #run}
     * @param rates messages per second of each client
     * @param capacity the most messages a client sends in one {@link #run}
     * @param progress where progress is counted (all clients together), or null
     * @param spin whether to busy-spin when no client had work (else yield)
     * @param lossy whether a missing echo is a loss to count rather than an error
     */
    public SharedClientLoop(final PingClient[] clients, final long[] rates, final int capacity, final Progress progress,
                            final boolean spin, final boolean lossy) {
        this(clients, rates, capacity, progress, spin, lossy, 1);
    }

    /**
     * Creates the loop for a responder that answers only every {@code respondEvery}th message.
     *
     * @param clients the connected clients, all used only by the thread that calls {@link #run}
     * @param rates messages per second of each client
     * @param capacity the most messages a client sends in one {@link #run}
     * @param progress where progress is counted (all clients together), or null
     * @param spin whether to busy-spin when no client had work (else yield)
     * @param lossy whether a missing echo is a loss to count rather than an error
     * @param respondEvery the responder answers the messages whose number is a multiple of this; 1 for all
     */
    public SharedClientLoop(final PingClient[] clients, final long[] rates, final int capacity, final Progress progress,
                            final boolean spin, final boolean lossy, final int respondEvery) {
        if (clients.length == 0 || rates.length != clients.length || capacity < 1 || respondEvery < 1) {
            throw new IllegalArgumentException("clients=" + clients.length + " rates=" + rates.length + " capacity="
                + capacity + " respondEvery=" + respondEvery);
        }
        this.clients = clients.clone();
        this.intervalNs = new double[clients.length];
        for (int k = 0; k < rates.length; k++) {
            if (rates[k] <= 0) {
                throw new IllegalArgumentException("rates[" + k + "]=" + rates[k] + " must be positive");
            }
            intervalNs[k] = 1e9 / rates[k];
        }
        this.capacity = capacity;
        this.respondEvery = respondEvery;
        this.sent = new long[clients.length];
        this.lastSendNs = new long[clients.length];
        this.received = new long[clients.length];
        this.limit = new long[clients.length];
        this.lastEchoNs = new long[clients.length];
        this.startNs = new long[clients.length];
        this.counts = new long[clients.length];
        this.heapClient = new int[clients.length];
        this.heapDue = new long[clients.length];
        this.polled = new int[clients.length];
        this.position = new int[clients.length];
        this.listed = new boolean[clients.length];
        this.readiness = lossy ? null : commonReadiness(clients);
        this.loopIndex = new int[readiness == null ? 0 : readiness.size()];
        this.readyIndexes = new int[loopIndex.length];
        for (int k = 0; readiness != null && k < clients.length; k++) {
            loopIndex[readiness.indexOf(clients[k])] = k;
        }
        this.finished = new boolean[clients.length];
        this.progress = progress;
        this.spin = spin;
        this.lossy = lossy;
    }

    /**
     * The group every client belongs to, if they all belong to one that names the clients an echo reached and has
     * no other clients; else null, and each client is polled in turn.
     */
    private static EchoReadiness commonReadiness(final PingClient[] clients) {
        final EchoReadiness group = clients[0].readiness();
        if (group == null || group.size() != clients.length) {
            return null;
        }
        final boolean[] seen = new boolean[clients.length];
        for (final PingClient client : clients) {
            final int index = client.readiness() == group ? group.indexOf(client) : -1;
            if (index < 0 || index >= clients.length || seen[index]) {
                return null;
            }
            seen[index] = true;
        }
        return group;
    }

    /**
     * Whether each pass asks the clients' group which of them to poll ({@link EchoReadiness}).
     *
     * @return true if it does
     */
    boolean pollsReadyOnly() {
        return readiness != null;
    }

    /**
     * The sequence number client {@code client} gives its message number {@code n}.
     *
     * @param client the client's index
     * @param n the message's number, below 2^32
     * @return {@code client << 32 | n}
     */
    public static long sequence(final int client, final long n) {
        return (long)client << 32 | n;
    }

    /**
     * Messages counted lost so far, all clients together (a lossy transport only); read it from the loop's
     * thread or after joining it.
     *
     * @return the count
     */
    public long lost() {
        return lost;
    }

    /**
     * Messages one client sent in the last {@link #run}.
     *
     * @param client the client's index
     * @return the count
     */
    public long sent(final int client) {
        return sent[client];
    }

    /**
     * The rate one client sustained in the last {@link #run}: its messages sent over the time from its first
     * message's intended send time to its last send, plus one interval (the time its last message stands for). A
     * client that kept to its schedule shows its rate; one that fell behind shows less.
     *
     * @param client the client's index
     * @return messages per second, or NaN if it sent none
     */
    public double sentRate(final int client) {
        if (sent[client] == 0) {
            return Double.NaN;
        }
        return sent[client] * 1e9 / (lastSendNs[client] - startNs[client] + intervalNs[client]);
    }

    /**
     * Messages echoed or counted lost in the last {@link #run} by one client (with a period above 1, the
     * messages not to be answered count as completed once the client is past them).
     *
     * @param client the client's index
     * @return the count
     */
    public long completed(final int client) {
        return received[client];
    }

    /**
     * When client {@code client} was to send its message number {@code n} of the last {@link #run} (its
     * schedule, not when it did).
     *
     * @param client the client's index
     * @param n the message's number in that run, from 0
     * @return a {@link System#nanoTime()}
     */
    public long intendedSendNs(final int client, final int n) {
        if (n >= sent[client]) {
            throw new IllegalArgumentException("client=" + client + " n=" + n + " sent=" + sent[client]);
        }
        return intendedNs(client, n);
    }

    /** The schedule of client {@code k}: when its message {@code index} of this run is due. */
    private long intendedNs(final int k, final long index) {
        return startNs[k] + (long)(index * intervalNs[k]);
    }

    /**
     * Asks a running loop to stop early (Ctrl-C); it throws {@link PingPongLoop.StoppedException} at its next
     * check.
     */
    public void requestStop() {
        stopRequested = true;
    }

    /**
     * Each client sends {@code count} messages, numbered from {@code first}, on its own schedule from now, while
     * every client polls for its echoes.
     *
     * @param first the first message number of every client
     * @param count how many messages each client sends, at most the capacity
     * @param histograms one histogram per client for its latencies, or null (warm-up)
     * @param deadlineNs a {@link System#nanoTime()} after which no client sends a new message (the echoes of
     *     those sent are still awaited and recorded), or 0 for none
     * @return messages completed, all clients together: echoed, or on a lossy transport counted lost
     * @throws IllegalStateException naming the client and sequence if an echo is missing, out of order or another
     *     client's
     */
    public long run(final long first, final long count, final Histogram[] histograms, final long deadlineNs) {
        for (int k = 0; k < counts.length; k++) {
            counts[k] = count;
        }
        return run(first, counts, histograms, deadlineNs);
    }

    /**
     * Like {@link #run(long, long, Histogram[], long)}, with a count of its own for each client.
     *
     * @param first the first message number of every client
     * @param counts how many messages each client sends, each at most the capacity
     * @param histograms one histogram per client for its latencies, or null (warm-up)
     * @param deadlineNs a {@link System#nanoTime()} after which no client sends a new message, or 0 for none
     * @return messages completed, all clients together: echoed, or on a lossy transport counted lost
     * @throws IllegalStateException naming the client and sequence if an echo is missing, out of order or another
     *     client's
     */
    public long run(final long first, final long[] counts, final Histogram[] histograms, final long deadlineNs) {
        final int n = clients.length;
        if (counts.length != n || histograms != null && histograms.length != n) {
            throw new IllegalArgumentException("counts=" + counts.length + " histograms="
                + (histograms == null ? 0 : histograms.length) + " clients=" + n);
        }
        for (final long count : counts) {
            if (count < 0 || count > capacity || first + count > 1L << 32) {
                throw new IllegalArgumentException("first=" + first + " count=" + count + " capacity=" + capacity);
            }
        }
        final long start = System.nanoTime();
        heapSize = 0;
        polledCount = 0;
        active = 0;
        for (int k = 0; k < n; k++) {
            sent[k] = 0;
            received[k] = 0;
            limit[k] = counts[k];
            lastEchoNs[k] = start;
            startNs[k] = start + (long)(intervalNs[k] * k / n);
            lastSendNs[k] = startNs[k];
            listed[k] = false;
            finished[k] = limit[k] == 0;
            if (limit[k] > 0) {
                active++;
                heapPush(k, startNs[k]);
            }
        }
        long total = 0;
        int turns = 0;
        boolean outOfTime = false;
        while (active > 0) {
            final long now = System.nanoTime();
            boolean worked = false;
            if (deadlineNs != 0 && !outOfTime && now - deadlineNs > 0) {
                outOfTime = true; // send no more, but wait for what is in flight
                heapSize = 0;
                for (int k = 0; k < n; k++) {
                    limit[k] = Math.min(limit[k], sent[k]);
                    if (!finished[k] && received[k] >= limit[k]) {
                        finished[k] = true;
                        active--;
                    }
                }
            }
            // the sends that are due, in the order they fell due; at most a turn a client per pass
            for (int turn = 0; turn < n && heapSize > 0 && now - heapDue[0] >= 0; turn++) {
                final int k = heapClient[0];
                final long before = received[k];
                send(k, now, first);
                total += received[k] - before;
                if (sent[k] < limit[k]) {
                    heapReplaceTop(intendedNs(k, sent[k]));
                } else {
                    heapPop();
                }
                if (!listed[k]) { // polled in this pass, whether or not an echo is awaited: it drives its transport
                    listed[k] = true;
                    position[k] = polledCount;
                    polled[polledCount++] = k;
                }
                worked = true;
            }
            if (readiness == null) {
                // backwards: a client taken out is replaced by the last, which has had its poll in this pass
                for (int i = polledCount - 1; i >= 0; i--) {
                    final int k = polled[i];
                    final long before = received[k];
                    worked |= poll(k, now, first, histograms == null ? null : histograms[k]);
                    total += received[k] - before;
                    if (received[k] >= sent[k]) {
                        unlist(k);
                    }
                    if (!finished[k] && received[k] >= limit[k]) {
                        finished[k] = true;
                        active--;
                    }
                }
            } else if (polledCount > 0) {
                // one cycle of the group's loop, then the clients it names: an echo, or a closed connection
                final int ready = readiness.pollReady(readyIndexes);
                for (int r = 0; r < ready; r++) {
                    final int k = loopIndex[readyIndexes[r]];
                    final long before = received[k];
                    worked |= pollListed(k, now, first, histograms);
                    total += received[k] - before;
                }
                if ((turns & CLOCK_CHECK_MASK) == 0) {
                    // the timeout a poll would find, for the clients the group did not name: read from the loop's
                    // own arrays, so that the check touches no client that has nothing to say
                    for (int i = polledCount - 1; i >= 0; i--) {
                        final int k = polled[i];
                        if (received[k] < sent[k] && now - lastEchoNs[k] > PingPongLoop.NO_ECHO_TIMEOUT_NS) {
                            pollListed(k, now, first, histograms); // throws, unless the echo came in the meantime
                        }
                    }
                }
            }
            // every so many turns, busy or not: a loop that sends or reads in most turns may never go 1024 turns idle
            if ((++turns & CLOCK_CHECK_MASK) == 0) {
                checkStop();
            }
            if (worked) {
                if (progress != null) {
                    progress.advance(total);
                }
            } else {
                if (spin) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
            }
        }
        return total;
    }

    /** Takes client {@code k} off the list of those polled: the last takes its place. */
    private void unlist(final int k) {
        listed[k] = false;
        final int last = polled[--polledCount];
        polled[position[k]] = last;
        position[last] = position[k];
    }

    /** Polls client {@code k} and takes it off the list once it awaits nothing; true if it had an echo. */
    private boolean pollListed(final int k, final long now, final long first, final Histogram[] histograms) {
        final boolean echoed = poll(k, now, first, histograms == null ? null : histograms[k]);
        if (listed[k] && received[k] >= sent[k]) {
            unlist(k);
        }
        if (!finished[k] && received[k] >= limit[k]) {
            finished[k] = true;
            active--;
        }
        return echoed;
    }

    /**
     * Polls made so far, every client and run together, for tests: each client is polled only in the passes in which
     * it sent or awaited an echo.
     *
     * @return the count
     */
    long polls() {
        return polls;
    }

    private void heapPush(final int k, final long due) {
        int i = heapSize++;
        while (i > 0) {
            final int parent = (i - 1) >>> 1;
            if (heapDue[parent] - due <= 0) {
                break;
            }
            heapClient[i] = heapClient[parent];
            heapDue[i] = heapDue[parent];
            i = parent;
        }
        heapClient[i] = k;
        heapDue[i] = due;
    }

    private void heapPop() {
        final int last = --heapSize;
        if (last > 0) {
            siftDown(heapClient[last], heapDue[last]);
        }
    }

    /** The top client's next send falls due at {@code due}: it takes its place in the heap. */
    private void heapReplaceTop(final long due) {
        siftDown(heapClient[0], due);
    }

    private void siftDown(final int k, final long due) {
        int i = 0;
        while (true) {
            int child = 2 * i + 1;
            if (child >= heapSize) {
                break;
            }
            if (child + 1 < heapSize && heapDue[child + 1] - heapDue[child] < 0) {
                child++;
            }
            if (due - heapDue[child] <= 0) {
                break;
            }
            heapClient[i] = heapClient[child];
            heapDue[i] = heapDue[child];
            i = child;
        }
        heapClient[i] = k;
        heapDue[i] = due;
    }

    /**
     * One client's sends: every one that is due (up to {@link #MAX_SENDS_PER_TURN}, so that echoes are still
     * polled). A client that fell behind its schedule sends what is due at once, as a client with a schedule of its
     * own would, so that a transport that batches can write them together.
     */
    private void send(final int k, final long now, final long first) {
        boolean worked = false;
        for (int burst = 0; burst < MAX_SENDS_PER_TURN && sent[k] < limit[k]; burst++) {
            final long due = intendedNs(k, sent[k]); // late sends keep their schedule: the delay is the system's
            if (now - due < 0) {
                break;
            }
            if (received[k] == sent[k]) {
                lastEchoNs[k] = now; // nothing was outstanding: the wait for an echo starts now
            }
            clients[k].send(sequence(k, first + sent[k]));
            sent[k]++;
            worked = true;
        }
        if (worked) {
            lastSendNs[k] = now;
            skipUnanswered(k, first);
        }
    }

    /**
     * One client's poll: every echo waiting, each checked and recorded; true if there was one. Without one, a
     * client past its wait counts what is missing lost (a lossy transport) or fails.
     */
    private boolean poll(final int k, final long now, final long first, final Histogram histogram) {
        boolean echoes = false;
        long echoed;
        while (true) { // every echo waiting: they cannot come faster than they were sent
            polls++;
            if ((echoed = clients[k].poll()) < 0) {
                break;
            }
            echoes = true;
            final long index = echoed - sequence(k, first);
            if (echoed >>> 32 != k) {
                throw outOfOrder(k, expected(k, first), echoed); // another client's echo
            }
            if (index != received[k]) {
                if (!lossy || index >= sent[k] || !BenchConfig.answers(echoed, respondEvery)) {
                    throw outOfOrder(k, expected(k, first), echoed);
                }
                if (index > received[k]) {
                    lost += answered(first + received[k], first + index); // skipped: not back in order
                    received[k] = index;
                }
            }
            if (index == received[k]) { // else the late echo of a message already counted lost
                final long latency = System.nanoTime() - intendedNs(k, index);
                if (histogram != null) {
                    histogram.recordValue(Math.max(0, Math.min(latency, PingPongLoop.HIGHEST_TRACKABLE_NS)));
                }
                received[k]++;
                lastEchoNs[k] = now;
                skipUnanswered(k, first);
            }
        }
        if (echoes) {
            return true;
        }
        if (received[k] < sent[k]) {
            if (lossy && sent[k] == limit[k] && now - lastEchoNs[k] > PingPongLoop.LOSS_WAIT_NS) {
                lost += answered(first + received[k], first + sent[k]); // nothing more to send, nothing came back
                received[k] = sent[k];
            } else if (now - lastEchoNs[k] > PingPongLoop.NO_ECHO_TIMEOUT_NS) {
                throw new IllegalStateException("client " + k + ": no echo of sequence=" + (first + received[k])
                    + " within " + TimeUnit.NANOSECONDS.toSeconds(PingPongLoop.NO_ECHO_TIMEOUT_NS) + " s");
            }
        }
        return false;
    }

    /**
     * Moves client {@code k}'s count of completed messages past the sent ones that are not to be answered, so
     * that it stops at the next one whose answer is awaited (or at what was sent). Constant time: the next
     * answered number is the next multiple of the period.
     */
    private void skipUnanswered(final int k, final long first) {
        if (respondEvery > 1 && received[k] < sent[k]) {
            final long next = RunSpec.answeredBelow(first + received[k], respondEvery) * respondEvery - first;
            received[k] = Math.min(sent[k], next);
        }
    }

    /** The message number client {@code k} awaits an answer for next: the next one past those completed that is answered. */
    private long expected(final int k, final long first) {
        return RunSpec.answeredBelow(first + received[k], respondEvery) * respondEvery;
    }

    /** How many of the message numbers {@code from .. to - 1} are answered. */
    private long answered(final long from, final long to) {
        return RunSpec.answeredBelow(to, respondEvery) - RunSpec.answeredBelow(from, respondEvery);
    }

    private static IllegalStateException outOfOrder(final int client, final long expected, final long echoed) {
        final long owner = echoed >>> 32;
        return new IllegalStateException("client " + client + ": echo out of order: expected sequence=" + expected
            + " got=" + (owner == client ? Long.toString(echoed & 0xFFFF_FFFFL)
            : (echoed & 0xFFFF_FFFFL) + " of client " + owner));
    }

    private void checkStop() {
        if (stopRequested) {
            throw new PingPongLoop.StoppedException();
        }
    }
}
