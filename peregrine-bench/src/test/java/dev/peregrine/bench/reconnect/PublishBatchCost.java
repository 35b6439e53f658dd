package dev.peregrine.bench.reconnect;

import dev.peregrine.mold.MoldUDP64MessageStore;
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

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Issue 32 (soup12): the CPU time of one publish by the size of the batch it is in (not a test; run by hand):
 * {@code java -cp ... dev.peregrine.bench.reconnect.PublishBatchCost lib|bench ROUNDS BATCH...}. One server reactor
 * driven by hand on this thread, one caught-up {@link SoupBinTcpClient} on its own reactor thread over loopback, no
 * replaying clients. Each duty cycle publishes one batch (batch sizes taken in turn), with the thread's CPU time read
 * around the batch only. {@code lib}: {@link SoupBinTcpSession#publish} alone. {@code bench}: the body of
 * {@code ReplayRunner}'s publisher loop without the diagnosis (two queued-position reads, the clock reads, the
 * {@link PublishToWriteRecorder}). Prints the median ns per message of each batch size.
 */
public final class PublishBatchCost {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private PublishBatchCost() {
    }

    public static void main(final String[] args) throws Exception {
        final boolean diag = args[0].startsWith("diag"); // the bench's body with --diagnose's hooks
        final boolean bench = args[0].startsWith("bench") || diag;
        final boolean thrash = args[0].endsWith("-cold"); // 64 MiB written between batches: caches and TLB cold
        final long[] junk = thrash ? new long[8 << 20] : new long[1];
        final int prefill = Integer.getInteger("prefill", 0);
        final int rounds = Integer.parseInt(args[1]);
        final int[] sizes = Arrays.stream(args, 2, args.length).mapToInt(Integer::parseInt).toArray();
        long total = 0;
        for (final int s : sizes) {
            total += (long)s * rounds;
        }
        final int capacity = Integer.highestOneBit((int)Math.min(1 << 28, total * 2 + prefill + 1)) << 1;
        final long[] liveChannel = {-1};
        final PublishToWriteRecorder write = new PublishToWriteRecorder(1 << 16, ReplayRunner.PACKET_BYTES);
        final long[] delivered = {0};
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.inMemory("COST", capacity, (long)capacity * 16);
             Arena arena = Arena.ofShared();
             Reactor server = new Reactor(new ReactorOptions().name("cost-server"));
             Reactor clients = new Reactor(new ReactorOptions().name("cost-client").idleStrategy(ReconnectRunner.idle(false)))) {
            final MemorySegment message = arena.allocate(16, 8);
            final SoupBinTcpSession[] session = new SoupBinTcpSession[1];
            for (int i = 0; i < prefill; i++) {
                store.append(message, 0, 16);
            }
            long seq = prefill;
            final SoupBinTcpServer soup = new SoupBinTcpServer(server, new SoupBinTcpServerOptions()
                .tcp(new TcpOptions().writeListener((id, written, pending) -> {
                    if (id == liveChannel[0]) {
                        write.onWritten(written, pending, System.nanoTime());
                    }
                })),
                (u, p, s) -> SoupLoginDecision.accept(session[0]), new SoupBinTcpServerHandler() {
                    @Override
                    public void onUnsequencedData(final long id, final SoupBinTcpSession from, final MemorySegment b,
                                                  final long o, final int l) {
                    }

                    @Override
                    public void onLoggedIn(final long id, final SoupBinTcpSession in, final String user, final long n) {
                        liveChannel[0] = id;
                    }
                });
            session[0] = soup.addSession("COST", store);
            final ReplayDiagnosis diagnosis = diag ? new ReplayDiagnosis(write, total, () -> 0) : null;
            if (diag) {
                server.addAtCycleStart(diagnosis.atCycleStart);
                server.add(diagnosis.afterSelect);
            }
            soup.listen(new InetSocketAddress("127.0.0.1", 0));
            while (soup.localAddress() == null) {
                server.doWork();
            }
            final SoupBinTcpClient client = new SoupBinTcpClient(clients, new SoupBinTcpClientOptions()
                .addresses(soup.localAddress()).credentials("live", "").fromSequence(0), (q, b, o, l) -> delivered[0]++);
            client.start();
            clients.start();
            final long loginDeadline = System.nanoTime() + 10_000_000_000L;
            while (liveChannel[0] < 0 && System.nanoTime() < loginDeadline) {
                server.doWork();
            }
            if (diag) {
                diagnosis.streamStarts();
                server.add(diagnosis.atCycleEnd);
            }
            final long[][] perMessage = new long[sizes.length][rounds];
            final long[][] sliced = new long[sizes.length][rounds];
            final long[][] wall = new long[sizes.length][rounds];
            final long[][] delay = new long[sizes.length][rounds];
            final ThreadSchedStat sched = new ThreadSchedStat();
            for (int r = 0; r < rounds; r++) {
                for (int k = 0; k < sizes.length; k++) {
                    final int batch = sizes[k];
                    for (int j = 0; thrash && j < junk.length; j += 8) {
                        junk[j] += j;
                    }
                    sched.read();
                    final long slices0 = sched.slices();
                    final long delay0 = sched.runDelayNs();
                    final long wall0 = System.nanoTime();
                    if (diag) {
                        diagnosis.publisherBegins(true);
                    }
                    final long cpu0 = THREADS.getCurrentThreadCpuTime();
                    for (int i = 0; i < batch; i++) {
                        if (bench) {
                            final long before = position(soup, liveChannel[0]);
                            final long entry = write.measured();
                            final long stamp = System.nanoTime();
                            message.set(LONG, 0, ++seq);
                            message.set(LONG, 8, stamp);
                            session[0].publish(message, 0, 16);
                            write.published(before, position(soup, liveChannel[0]), stamp);
                            if (diag) {
                                diagnosis.published(entry, stamp);
                            }
                            write.written(soup.bytesWritten(liveChannel[0]), System.nanoTime());
                            if (diag) {
                                diagnosis.entriesWritten();
                            }
                        } else {
                            message.set(LONG, 0, ++seq);
                            session[0].publish(message, 0, 16);
                        }
                    }
                    final long cpu1 = THREADS.getCurrentThreadCpuTime();
                    if (diag) {
                        diagnosis.publisherEnds();
                    }
                    perMessage[k][r] = (cpu1 - cpu0) / batch;
                    sched.read();
                    sliced[k][r] = sched.slices() - slices0;
                    delay[k][r] = sched.runDelayNs() - delay0;
                    wall[k][r] = System.nanoTime() - wall0;
                    for (int c = 0; c < 4; c++) {
                        server.doWork(); // the end-of-cycle flush writes the batch
                    }
                }
            }
            for (int k = 0; k < sizes.length; k++) {
                final StringBuilder early = new StringBuilder("   first 30 batches, cpu ns per msg:");
                for (int r = 0; r < Math.min(30, rounds); r++) {
                    early.append(' ').append(perMessage[k][r]);
                }
                System.out.println(early);
                final long[] half = Arrays.copyOfRange(perMessage[k], rounds / 2, rounds);
                Arrays.sort(half);
                System.out.printf("%s batch %5d: median %6d ns/msg  p10 %6d  p90 %6d (second half of %d rounds)%n",
                    args[0], sizes[k], half[half.length / 2], half[half.length / 10], half[half.length * 9 / 10], rounds);
                final long[] in = new long[rounds];
                final long[] out = new long[rounds];
                int ni = 0;
                int no = 0;
                for (int r = rounds / 2; r < rounds; r++) {
                    if (sliced[k][r] > 0) {
                        in[ni++] = perMessage[k][r];
                    } else {
                        out[no++] = perMessage[k][r];
                    }
                }
                Arrays.sort(in, 0, ni);
                Arrays.sort(out, 0, no);
                System.out.printf("   not switched out during the batch: %d batches, median %d ns/msg, max %d;"
                    + " switched out: %d batches, median %d ns/msg, max %d%n", no, no == 0 ? -1 : out[no / 2],
                    no == 0 ? -1 : out[no - 1], ni, ni == 0 ? -1 : in[ni / 2], ni == 0 ? -1 : in[ni - 1]);
                // the batches of longest wall time, as the bench's p99 picks them
                final Integer[] order = new Integer[rounds - rounds / 2];
                for (int i = 0; i < order.length; i++) {
                    order[i] = rounds / 2 + i;
                }
                final int kk = k;
                Arrays.sort(order, (x, y) -> Long.compare(wall[kk][y], wall[kk][x]));
                final StringBuilder top = new StringBuilder("   longest 1% by wall (wall us / run delay us / cpu ns per msg):");
                for (int i = 0; i < Math.max(1, order.length / 100); i++) {
                    final int r = order[i];
                    top.append(String.format(" %d/%d/%d", wall[k][r] / 1000, delay[k][r] / 1000, perMessage[k][r]));
                }
                System.out.println(top);
            }
            System.out.println("published " + seq + ", writes " + write.writes() + ", measured "
                + write.histogram().getTotalCount() + ", partial writes " + write.partialWrites());
        }
    }

    private static long position(final SoupBinTcpServer server, final long channelId) {
        final long written = server.bytesWritten(channelId);
        final long pending = server.pendingBytes(channelId);
        return written < 0 || pending < 0 ? -1 : written + pending;
    }
}
