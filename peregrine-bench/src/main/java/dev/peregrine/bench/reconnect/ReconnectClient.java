package dev.peregrine.bench.reconnect;

import dev.peregrine.reactor.Pollable;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.soup.SoupBinTcpClient;
import dev.peregrine.soup.SoupBinTcpClientListener;
import dev.peregrine.soup.SoupBinTcpClientOptions;
import dev.peregrine.tcp.TcpOptions;
import org.HdrHistogram.Histogram;

import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The client side of {@code bench reconnect}, on its reactor's thread: a {@link SoupBinTcpClient} that logs in from 1
 * and reconnects by itself (the first retry at once, then 1 ms doubling up to 50 ms), and the check of every message
 * it delivers against the feed: a message whose number is past the next expected counts the ones between as lost, one
 * at or below it counts as repeated. It makes the client-side cuts of a {@link CutSchedule}, and records the time from
 * each cut to the first message delivered on the next connection.
 */
final class ReconnectClient implements SoupBinTcpClientListener {
    private static final int DETECTED = 0;
    private static final int ACCEPTED = 1;
    private static final int FIRST = 2;
    private static final int STAGES = 3;
    private static final String[] STAGE_NAMES = {"loss noticed", "login accepted", "first message"};

    private final Reactor reactor;
    private final SoupBinTcpClient client;
    private final CutSchedule cuts;
    private final long count;
    /** A test hook: the number of one message this client drops as a broken client would, or 0. */
    private final long skip;
    private final Histogram resume = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    /**
     * The resume's stages, from the cut, by who cut ({@link CutSchedule#SERVER}, {@link CutSchedule#CLIENT}): the loss
     * noticed by the client, Login Accepted on the next connection, the first message on it.
     */
    private final Histogram[][] stages = new Histogram[2][STAGES];
    private long lostCuts;
    private final Pollable cutter = this::cut;
    /** This reactor's cycles during each resume, or null without cuts. */
    private final ResumeCycles resumeCycles;
    private long expected = 1;
    private long lost;
    private long repeated;
    private long foreign;
    private volatile long delivered;
    private long measuredCuts;
    private long cutNs;
    private boolean awaitingFirst;
    private boolean started;
    private boolean endOfSession;
    private volatile String stopped;

    ReconnectClient(final Reactor reactor, final SocketAddress server, final long count, final CutSchedule cuts,
                    final long skip, final int receiveBuffer) {
        this.reactor = reactor;
        this.count = count;
        this.cuts = cuts;
        this.skip = skip;
        this.client = new SoupBinTcpClient(reactor, new SoupBinTcpClientOptions().addresses(server)
            .credentials(ReconnectServer.USER, ReconnectServer.PASSWORD).session("").fromSequence(1)
            .backoff(1, 50, TimeUnit.MILLISECONDS).tcp(new TcpOptions().socketReceiveBufferSize(receiveBuffer)), this);
        this.resumeCycles = cuts == null ? null : new ResumeCycles(cuts, CutSchedule.CLIENT);
        reactor.add(cutter);
        for (final Histogram[] side : stages) {
            for (int stage = 0; stage < STAGES; stage++) {
                side[stage] = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
            }
        }
    }

    /** Records a stage of the resume after the last cut, in the histogram of the side that made it. */
    private void stage(final int stage) {
        final long made = cuts.made();
        final Histogram histogram = stages[cuts.sideOf(made - 1)][stage];
        histogram.recordValue(Math.min(histogram.getHighestTrackableValue(), Math.max(0, System.nanoTime() - cuts.lastCutNs())));
    }

    @Override
    public void onConnectionLost(final String reason) {
        if (cuts != null && cuts.made() != lostCuts) { // the first loss after a cut: the cut noticed
            lostCuts = cuts.made();
            stage(DETECTED);
            hop(CutHops.NOTICED);
        }
    }

    @Override
    public void onConnecting(final SocketAddress address) {
        hop(CutHops.CONNECTING);
    }

    @Override
    public void onConnected(final SocketAddress address) {
        hop(CutHops.CONNECTED);
    }

    /** Stamps a hop of the last cut's resume (the first of its kind after the cut only); allocates nothing. */
    private void hop(final int hop) {
        final CutHops hops = cuts == null ? null : cuts.hops();
        if (hops != null) {
            hops.stamp(cuts.made() - 1, hop, System.nanoTime());
        }
    }

    /** Connects; call on the reactor's thread or before it starts. */
    void start() {
        client.start();
    }

    private int cut(final long nowNs) {
        if (resumeCycles != null) {
            resumeCycles.cycle(nowNs);
        }
        if (cuts != null && cuts.due(CutSchedule.CLIENT, nowNs)) {
            cuts.cut();
            client.abortConnection();
            return 1;
        }
        return 0;
    }

    @Override
    public void onLoginAccepted(final String session, final long sequence) {
        if (cuts != null && cuts.made() != measuredCuts) {
            measuredCuts = cuts.made();
            cutNs = cuts.lastCutNs();
            awaitingFirst = true;
            stage(ACCEPTED);
            hop(CutHops.ACCEPTED);
        }
    }

    @Override
    public void onSequencedData(final long sequence, final MemorySegment buffer, final long offset, final int length) {
        final long n = ReconnectFeed.number(buffer, offset, length);
        if (n == skip) {
            return; // the broken client of the test hook
        }
        if (awaitingFirst) {
            resume.recordValue(Math.min(resume.getHighestTrackableValue(), System.nanoTime() - cutNs));
            awaitingFirst = false;
            stage(FIRST);
            hop(CutHops.FIRST);
            cuts.resumedAfter(measuredCuts);
        } else if (!started) {
            started = true;
            if (cuts != null) {
                cuts.resumedAfter(0);
            }
        }
        if (n < 0) {
            foreign++;
        } else if (n == expected) {
            expected++;
        } else if (n > expected) {
            lost += n - expected;
            expected = n + 1;
        } else {
            repeated++;
        }
        delivered = delivered + 1; // single writer: this thread
    }

    @Override
    public void onEndOfSession() {
        endOfSession = true;
    }

    @Override
    public void onStopped(final String reason) {
        stopped = reason;
    }

    /** Whether the client stopped at End of Session, as the run ends; read once {@link #stopped()} is set. */
    boolean endedAtEndOfSession() {
        return endOfSession;
    }

    /** Stops the client; on the reactor's thread. */
    void close() {
        client.close();
        reactor.remove(cutter);
        if (resumeCycles != null) {
            resumeCycles.close();
        }
    }

    long delivered() {
        return delivered;
    }

    /** Why the client stopped (End of Session, after it logged out), or null while it runs. */
    String stopped() {
        return stopped;
    }

    /** Lost: the numbers skipped over, and those never delivered up to the count. Read after the thread ended. */
    long lost() {
        return lost + Math.max(0, count + 1 - expected);
    }

    long repeated() {
        return repeated;
    }

    long foreign() {
        return foreign;
    }

    long connects() {
        return client.connects();
    }

    long skippedRepeats() {
        return client.skippedRepeats();
    }

    Histogram resume() {
        return resume;
    }

    /**
     * The resume's stages, a line for each side that cut: p50 and p99 from the cut to the loss noticed, to Login
     * Accepted, and to the first message. Read after the thread ended.
     */
    List<String> breakdown() {
        final List<String> lines = new ArrayList<>();
        for (int side = 0; side < stages.length; side++) {
            if (stages[side][FIRST].getTotalCount() == 0) {
                continue;
            }
            final StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  cut by the %s (n=%d), from the cut:",
                side == CutSchedule.SERVER ? "server" : "client", stages[side][FIRST].getTotalCount()));
            for (int stage = 0; stage < STAGES; stage++) {
                final Histogram histogram = stages[side][stage];
                line.append(String.format(Locale.ROOT, "%s %s p50 %.1f us p99 %.1f us", stage == 0 ? "" : ";",
                    STAGE_NAMES[stage], histogram.getValueAtPercentile(50) / 1e3, histogram.getValueAtPercentile(99) / 1e3));
            }
            lines.add(line.toString());
        }
        if (cuts != null && cuts.hops() != null) {
            lines.addAll(cuts.hops().lines(cuts.made()));
        }
        return lines;
    }
}
