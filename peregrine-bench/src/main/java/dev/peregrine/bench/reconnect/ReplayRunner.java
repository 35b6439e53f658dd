package dev.peregrine.bench.reconnect;

import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.reactor.Pollable;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.soup.SoupBinTcpClient;
import dev.peregrine.soup.SoupBinTcpClientOptions;
import dev.peregrine.soup.SoupBinTcpServer;
import dev.peregrine.soup.SoupBinTcpServerHandler;
import dev.peregrine.soup.SoupBinTcpServerOptions;
import dev.peregrine.soup.SoupBinTcpSession;
import dev.peregrine.soup.SoupLoginDecision;
import dev.peregrine.tcp.TcpOptions;
import dev.peregrine.tcp.TcpWriteListener;
import org.HdrHistogram.Histogram;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@code bench reconnect --replay-clients N}: one server reactor thread whose store already holds {@code replay}
 * messages; a live stream is published at a rate while {@code N} clients log in from 1 and replay the store, and one
 * client that logged in live (sequence 0, user {@code live}) is the caught-up client measured. The same run without
 * replaying clients is the baseline. Two figures for each live message:
 * <ul>
 *   <li>publish to write, server side (the Targets' figure): from the publish to the write that hands the
 *       message's last byte to the live client's socket, stamped as that write returns
 *       ({@link PublishToWriteRecorder} fed by a {@link TcpWriteListener}; positions from
 *       {@code bytesWritten + pendingBytes});</li>
 *   <li>publish to deliver, client side: a timestamp in the message (same JVM clock) to its delivery; the clients
 *       share one client reactor thread, so this adds the client thread, busy with the replaying clients.</li>
 * </ul>
 */
public final class ReplayRunner {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private ReplayRunner() {
    }

    /** Bytes of one live message on the wire: SoupBinTCP's length (2) and type (1), then its 16 bytes. */
    static final int PACKET_BYTES = 3 + 16;
    private static final int RING = 1 << 16;
    private static final String LIVE_USER = "live";
    /**
     * Live messages of the warm-up run: enough for C2 to compile the publish path (PublishBatchCost); 3 s at
     * 100k msg/s, published beside the warm-up's replays.
     */
    static final long WARM_UP_MESSAGES = 300_000;
    /** Replaying clients of the warm-up run (20 of 100 measured on 2026-11-29: docs/soup-p2w-warmup.md). */
    static final int WARM_UP_CLIENTS = 20;
    /**
     * What each replaying client of the warm-up run replays: four times a connection's outbound buffer and more
     * (ReplayRunnerTest), so that the buffer's wrap and a full buffer's back-pressure are taken, and compiled,
     * before the measured runs. With 10 000 (190 KB, under the 256 KiB buffer; before 2026-11-29) they were first taken
     * inside the measured run with replaying clients: uncommon traps in {@code TcpOutboundBuffer.reserve},
     * {@code TcpFrameSender.flushAfterAppend} and {@code SoupBinTcpServer.replayPass}, then some 3 s of C2 compiling
     * the serve and write paths again on a 2-vCPU machine, in the measured stream (docs/soup-p2w-warmup.md).
     */
    static final int WARM_UP_REPLAY = 100_000;
    /**
     * Most live messages the publisher publishes in one duty cycle. A publisher that fell behind (its thread waited
     * for a core) catches up in runs of this many, each written at its cycle's end. Each message is stamped at its own
     * publish, so in a run of 1 024 (the bound before 2026-11-28) the first message waited for the other 1 023
     * publishes, about 1 ms. That wait was the publisher's, not the server's, and it was most of the figure's p99 with
     * the replays: 325-385 us against 32-36 us with runs of 16 (docs/soup-p2w-split.md).
     */
    static final int PUBLISH_BATCH = 16;

    /**
     * How many live messages the publisher publishes in this cycle.
     *
     * @param published messages published so far
     * @param due messages due by now
     * @return what is due, at most {@link #PUBLISH_BATCH}
     */
    static int publishable(final long published, final long due) {
        return (int)Math.max(0, Math.min(due - published, PUBLISH_BATCH));
    }

    /**
     * What one run measured.
     *
     * @param finished every replaying client had the whole store, the live client every live message, and the
     *     server saw every measured message written
     * @param liveDelivered live messages the live client delivered
     * @param deliver publish to deliver at the live client, ns
     * @param write publish to write at the server, for the live client's connection
     * @param replayWindow live messages published before the first replaying client caught up (all of them in a
     *     run without replaying clients): those whose figures are in {@code write.histogram()}
     */
    public record Run(boolean finished, long liveDelivered, Histogram deliver, PublishToWriteRecorder write,
                      long replayWindow) {
    }

    /**
     * Runs a warm-up (not measured, so that the measured runs start compiled), the baseline, then the run with
     * replaying clients, and prints both.
     *
     * @param clients replaying clients, at least 1
     * @param replay messages in the store before the live stream starts
     * @param rate live messages per second
     * @param live live messages
     * @param out where the lines go
     * @return true if both runs finished (every replaying client had the whole store and the live client every live
     *     message)
     * @throws InterruptedException if interrupted while waiting
     */
    public static boolean run(final int clients, final int replay, final long rate, final long live,
                              final java.io.PrintStream out) throws InterruptedException {
        return run(clients, replay, rate, live, out, false);
    }

    /**
     * As {@link #run(int, int, long, long, java.io.PrintStream)}, with the diagnosis of each run printed after it
     * when asked ({@link ReplayDiagnosis}: where the time of the messages at or over the p99 goes).
     *
     * @param clients replaying clients, at least 1
     * @param replay messages in the store before the live stream starts
     * @param rate live messages per second
     * @param live live messages
     * @param out where the lines go
     * @param diagnose whether to split the server's duty cycles and print what holds the p99
     * @return true if both runs finished
     * @throws InterruptedException if interrupted while waiting
     */
    public static boolean run(final int clients, final int replay, final long rate, final long live,
                              final java.io.PrintStream out, final boolean diagnose) throws InterruptedException {
        // issue 32 (soup12): a cold JVM publishes at 1-50 us a message (interpreted, then C1) for its first
        // batches, falls behind into catch-up batches and those cold batches are the p99; so the measured runs
        // start with the publish, replay and client paths compiled
        final long warm = Math.min(live, WARM_UP_MESSAGES);
        final Run warmUp = once(Math.min(clients, WARM_UP_CLIENTS), Math.min(replay, WARM_UP_REPLAY), rate, warm,
            new java.io.PrintStream(java.io.OutputStream.nullOutputStream()), null, false);
        out.println(String.format(Locale.ROOT, "  warm-up (not measured): %d live messages, %d clients replaying %d:"
            + " %s", warm, Math.min(clients, WARM_UP_CLIENTS), Math.min(replay, WARM_UP_REPLAY),
            warmUp.finished() ? "finished" : "NOT finished in time"));
        final Run alone = once(0, replay, rate, live, out, null, diagnose);
        final Run loaded = once(clients, replay, rate, live, out, null, diagnose);
        if (!alone.finished() || !loaded.finished()) {
            return false;
        }
        final String with = clients + " clients replaying " + replay + " each";
        out.println(line("live client, no replaying clients", alone.deliver()));
        out.println(line("live client, " + with, loaded.deliver()));
        out.println(String.format(Locale.ROOT, "p99 with replaying clients / p99 without: %.2f",
            (double)loaded.deliver().getValueAtPercentile(99) / Math.max(1, alone.deliver().getValueAtPercentile(99))));
        out.println(writeLine("server, no replaying clients", alone.write(), alone.write().histogram()));
        out.println(writeLine("server, " + with + ", while all " + clients + " were replaying (live messages 1 to "
            + loaded.replayWindow() + " of " + live + ")", loaded.write(), loaded.write().histogram()));
        final Histogram after = loaded.write().outsideWindow();
        if (after.getTotalCount() > 0) {
            out.println(String.format(Locale.ROOT, "server, after the first replaying client caught up (not the"
                    + " target's: a publish then writes to every client caught up): publish to write at the caught-up"
                    + " client (after n=%d) p50 %.1f us  p99 %.1f us  max %.1f us", after.getTotalCount(),
                after.getValueAtPercentile(50) / 1e3, after.getValueAtPercentile(99) / 1e3, after.getMaxValue() / 1e3));
        }
        final double ratio = (double)loaded.write().histogram().getValueAtPercentile(99)
            / Math.max(1, alone.write().histogram().getValueAtPercentile(99));
        out.println(String.format(Locale.ROOT, "server publish-to-write p99 with replaying clients / without: %.2f"
            + " (target: within 2x) %s", ratio, ratio <= 2.0 ? "MET" : "NOT MET"));
        return true;
    }

    private static String line(final String what, final Histogram h) {
        return String.format(Locale.ROOT, "%s: publish to deliver (n=%d) p50 %.1f us  p99 %.1f us  max %.1f us", what,
            h.getTotalCount(), h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3, h.getMaxValue() / 1e3);
    }

    private static String writeLine(final String what, final PublishToWriteRecorder r, final Histogram h) {
        return String.format(Locale.ROOT, "%s: publish to write at the caught-up client (n=%d, not caught up %d, ring"
                + " full %d; stamped at the write) p50 %.1f us  p99 %.1f us  max %.1f us; its writes %d, left bytes"
                + " for OP_WRITE %d (most %d B)", what,
            h.getTotalCount(), r.notCaughtUp(), r.overflowed(), h.getValueAtPercentile(50) / 1e3,
            h.getValueAtPercentile(99) / 1e3, h.getMaxValue() / 1e3, r.writes(), r.partialWrites(), r.mostPending());
    }

    /** The connection's queued position: bytes handed to its socket and bytes waiting; -1 if it has none. */
    private static long position(final SoupBinTcpServer server, final long channelId) {
        if (channelId < 0) {
            return -1;
        }
        final long written = server.bytesWritten(channelId);
        final long pending = server.pendingBytes(channelId);
        return written < 0 || pending < 0 ? -1 : written + pending;
    }

    /**
     * One run.
     *
     * @param clients replaying clients, 0 for the baseline
     * @param replay messages in the store before the live stream starts
     * @param rate live messages per second
     * @param live live messages
     * @param out where its summary line goes
     * @return what it measured
     * @throws InterruptedException if interrupted while waiting
     */
    public static Run once(final int clients, final int replay, final long rate, final long live,
                           final java.io.PrintStream out) throws InterruptedException {
        return once(clients, replay, rate, live, out, null, false);
    }

    /**
     * One run, with the server reactor's allocated bytes sampled during the live stream (for a test).
     *
     * @param allocationMarks null, or filled with the server reactor thread's allocated bytes after every
     *     {@code live / allocationMarks.length} live messages: consecutive differences are windows of that many
     */
    static Run once(final int clients, final int replay, final long rate, final long live,
                    final java.io.PrintStream out, final long[] allocationMarks) throws InterruptedException {
        return once(clients, replay, rate, live, out, allocationMarks, false);
    }

    static Run once(final int clients, final int replay, final long rate, final long live,
                    final java.io.PrintStream out, final long[] allocationMarks, final boolean diagnose)
        throws InterruptedException {
        final long markEvery = allocationMarks == null ? Long.MAX_VALUE : Math.max(1, live / allocationMarks.length);
        final int capacity = Integer.highestOneBit((int)Math.min(1 << 28, replay + live + 1)) << 1;
        final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        final PublishToWriteRecorder write = new PublishToWriteRecorder(RING, PACKET_BYTES);
        final long[] liveChannel = {-1};
        final SoupBinTcpServer[] serverRef = new SoupBinTcpServer[1];
        final ReplayDiagnosis diagnosis = diagnose ? new ReplayDiagnosis(write, live,
            () -> liveChannel[0] < 0 ? 0 : serverRef[0].pendingBytes(liveChannel[0])) : null;
        final long[] delivered = new long[clients];
        final long[] liveDelivered = {0};
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("REPLAY", capacity, (long)capacity * 16);
             Arena arena = Arena.ofShared();
             Reactor serverReactor = new Reactor(new ReactorOptions().name("replay-server")
                 .idleStrategy(ReconnectRunner.idle(false)));
             Reactor clientReactor = new Reactor(new ReactorOptions().name("replay-clients")
                 .idleStrategy(ReconnectRunner.idle(false)))) {
            final MemorySegment message = arena.allocate(16, 8);
            for (long n = 1; n <= replay; n++) {
                message.set(LONG, 0, n);
                message.set(LONG, 8, 0L); // no timestamp: a replayed message
                store.append(message, 0, 16);
            }
            final SoupBinTcpSession[] session = new SoupBinTcpSession[1];
            // every write to the live client's socket, as it returns: the publish-to-write figure ends there
            final TcpWriteListener liveWrites = (id, bytesWritten, bytesPending) -> {
                if (id == liveChannel[0]) {
                    write.onWritten(bytesWritten, bytesPending, System.nanoTime());
                }
                if (diagnosis != null) {
                    diagnosis.onWrite(id, bytesWritten, id == liveChannel[0]);
                }
            };
            if (diagnosis != null) { // around the server's pollable, which the server adds when made
                serverReactor.addAtCycleStart(diagnosis.atCycleStart);
                serverReactor.add(diagnosis.afterSelect);
            }
            final SoupBinTcpServer server = new SoupBinTcpServer(serverReactor, new SoupBinTcpServerOptions()
                .tcp(new TcpOptions().writeListener(liveWrites)),
                (u, p, s) -> SoupLoginDecision.accept(session[0]), new SoupBinTcpServerHandler() {
                    @Override
                    public void onUnsequencedData(final long id, final SoupBinTcpSession from, final MemorySegment b,
                                                  final long o, final int l) {
                    }

                    @Override
                    public void onLoggedIn(final long id, final SoupBinTcpSession in, final String username,
                                           final long next) {
                        if (LIVE_USER.equals(username)) {
                            liveChannel[0] = id;
                        }
                    }
                });
            serverRef[0] = server;
            session[0] = server.addSession("REPLAY", store);
            server.listen(new InetSocketAddress("127.0.0.1", 0));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (server.localAddress() == null && System.nanoTime() < deadline) {
                serverReactor.doWork();
            }
            final List<SoupBinTcpClient> all = new ArrayList<>();
            final SoupBinTcpClient liveClient = new SoupBinTcpClient(clientReactor, new SoupBinTcpClientOptions()
                .addresses(server.localAddress()).credentials(LIVE_USER, "").fromSequence(0), (seq, b, o, l) -> {
                    final long stamp = b.get(LONG, o + 8);
                    if (stamp != 0) {
                        latency.recordValue(Math.min(latency.getHighestTrackableValue(), System.nanoTime() - stamp));
                        liveDelivered[0]++;
                    }
                });
            all.add(liveClient);
            for (int c = 0; c < clients; c++) {
                final int index = c;
                all.add(new SoupBinTcpClient(clientReactor, new SoupBinTcpClientOptions().addresses(server.localAddress())
                    .fromSequence(1), (seq, b, o, l) -> delivered[index]++));
            }
            all.forEach(SoupBinTcpClient::start);
            final long[] published = {0};
            final long[] startNs = {0};
            // the Targets' figure is for a live stream that runs while the clients replay: once the first replaying
            // client has caught up, a publish writes to it too (101 clients at the end), which is another scenario;
            // those messages are recorded apart ({@link PublishToWriteRecorder#outsideWindow})
            final long[] windowEnd = {clients == 0 ? Long.MAX_VALUE : -1};
            final Pollable publisher = nowNs -> {
                if (published[0] == 0 && (session[0].clientCount() < clients + 1 || liveChannel[0] < 0)) {
                    return 0; // the stream starts once every client is logged in
                }
                if (startNs[0] == 0) {
                    startNs[0] = nowNs;
                    if (diagnosis != null) {
                        diagnosis.streamStarts();
                        serverReactor.add(diagnosis.atCycleEnd); // behind the transport's flusher, listed by now
                    }
                }
                final long due = Math.min(live, (nowNs - startNs[0]) / 1_000 * rate / 1_000_000);
                if (diagnosis != null) {
                    diagnosis.publisherBegins(published[0] < due);
                }
                int work = 0;
                final int batch = publishable(published[0], due);
                while (work < batch) {
                    final long before = position(server, liveChannel[0]);
                    final long entry = write.measured();
                    final long stamp = System.nanoTime();
                    message.set(LONG, 0, replay + published[0] + 1);
                    message.set(LONG, 8, stamp);
                    if (windowEnd[0] < 0 && session[0].liveClientCount() > 1) {
                        windowEnd[0] = published[0];
                    }
                    session[0].publish(message, 0, 16);
                    write.published(before, position(server, liveChannel[0]), stamp, windowEnd[0] < 0
                        || published[0] < windowEnd[0]);
                    if (diagnosis != null) {
                        diagnosis.published(entry, stamp);
                    }
                    // written at once inside the publish (half its buffer taken): the listener saw that write
                    // before the entry existed, so it is matched now, a little late
                    write.written(server.bytesWritten(liveChannel[0]), System.nanoTime());
                    if (diagnosis != null) {
                        diagnosis.entriesWritten();
                    }
                    published[0]++;
                    work++;
                    if (published[0] % markEvery == 0 && published[0] / markEvery <= allocationMarks.length) {
                        allocationMarks[(int)(published[0] / markEvery) - 1] =
                            dev.peregrine.bench.run.ThreadAllocation.currentThread();
                    }
                }
                if (diagnosis != null) {
                    diagnosis.publisherEnds();
                }
                return work;
            };
            serverReactor.add(publisher);
            serverReactor.start();
            clientReactor.start();
            final long end = System.nanoTime() + 2 * live * 1_000_000_000L / rate + TimeUnit.SECONDS.toNanos(60);
            boolean done = false;
            while (!done && System.nanoTime() < end) {
                Thread.sleep(100);
                final boolean[] check = {true};
                ReconnectRunner.closeOn(clientReactor, () -> {
                    check[0] = liveDelivered[0] == live;
                    for (final long d : delivered) {
                        check[0] &= d >= replay + live;
                    }
                });
                ReconnectRunner.closeOn(serverReactor, () -> check[0] &= published[0] == live && write.waiting() == 0);
                done = check[0];
            }
            ReconnectRunner.closeOn(clientReactor, () -> all.forEach(SoupBinTcpClient::close));
            if (diagnosis != null) {
                ReconnectRunner.closeOn(serverReactor, diagnosis::streamEnds);
            }
            ReconnectRunner.closeOn(serverReactor, server::close);
            out.println(String.format(Locale.ROOT, "  %d replaying clients: %s; live client delivered %d of %d", clients,
                done ? "finished" : "NOT finished in time", liveDelivered[0], live));
            if (diagnosis != null) {
                diagnosis.report(clients + " replaying", write.histogram().getTotalCount(), out);
            }
            return new Run(done, liveDelivered[0], latency, write, windowEnd[0] < 0 ? live : Math.min(live,
                windowEnd[0]));
        }
    }
}
