package dev.peregrine.shm;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Measures the rings between two JVMs (not a test; run by hand):
 * {@code java -cp target/classes:target/test-classes dev.peregrine.shm.ShmMeasure pingpong SIZE COUNT spin|futex}
 * or {@code ... throughput SIZE COUNT}. The other JVM is started here; prints percentiles or messages/s.
 * {@code ... parkfloor GAP_US COUNT} measures this machine's own wake-up of a parked thread (LockSupport
 * park/unpark, a futex underneath) after an idle gap: the floor under a futex reader's wake-up.
 */
public final class ShmMeasure {
    private ShmMeasure() {
    }

    /**
     * Runs a measurement, or (internally) the other side.
     *
     * @param args mode and parameters
     * @throws Exception on failure
     */
    public static void main(final String[] args) throws Exception {
        switch (args[0]) {
            case "pingpong" -> pingPong(Integer.parseInt(args[1]), Integer.parseInt(args[2]), args[3]);
            case "throughput" -> throughput(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
            case "echo" -> echo(Path.of(args[1]), args[2]);
            case "idle" -> idle(args[1]);
            case "local" -> local(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
            case "sink" -> sink(Path.of(args[1]), Long.parseLong(args[2]));
            case "parkfloor" -> parkFloor(Long.parseLong(args[1]), Integer.parseInt(args[2]));
            default -> throw new IllegalArgumentException("mode=" + args[0]);
        }
    }

    private static Process start(final String... args) throws Exception {
        final List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-XX:AutoBoxCacheMax=65536", "-cp",
            System.getProperty("java.class.path"), ShmMeasure.class.getName()));
        command.addAll(List.of(args));
        final Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        final BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        if (!"ready".equals(out.readLine())) {
            throw new IllegalStateException("peer did not start");
        }
        return process;
    }

    private static void pingPong(final int size, final int count, final String wait) throws Exception {
        final Path socket = Files.createTempDirectory("shm-measure").resolve("pp.sock");
        final Process peer = start("echo", socket.toString(), wait);
        try (ShmSocket client = ShmSocket.connect(UnixDomainSocketAddress.of(socket), new ShmOptions())) {
            final ShmRingWriter writer = client.writer();
            final ShmRingReader reader = client.reader();
            final long[] got = new long[1];
            final ShmMessageHandler handler = (b, o, l) -> got[0] = b.get(ValueLayout.JAVA_LONG_UNALIGNED, o);
            final long[] rtt = new long[count];
            final int warmup = count / 5;
            for (int round = 0; round < count + warmup; round++) {
                final long start = System.nanoTime();
                final long index = writer.tryClaim(size);
                writer.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED, index, round);
                writer.commit(index);
                got[0] = -1;
                while (reader.poll(handler, 1) == 0) {
                    Thread.onSpinWait();
                }
                final long end = System.nanoTime();
                if (got[0] != round) {
                    throw new IllegalStateException("got " + got[0] + " expected " + round);
                }
                if (round >= warmup) {
                    rtt[round - warmup] = end - start;
                }
                if (!"spin".equals(wait)) {
                    final long until = System.nanoTime() + 20_000; // let the responder fall asleep
                    while (System.nanoTime() < until) {
                        Thread.onSpinWait();
                    }
                }
            }
            Arrays.sort(rtt);
            System.out.printf("peregrine-shm %s size=%d rtt ns: p50=%d p90=%d p99=%d p99.9=%d p99.99=%d max=%d%n", wait, size,
                rtt[count / 2], rtt[count * 9 / 10], rtt[count * 99 / 100], rtt[count * 999 / 1000],
                rtt[(int)(count * 9999L / 10000)], rtt[count - 1]);
        } finally {
            peer.destroyForcibly().waitFor();
        }
    }

    private static void throughput(final int size, final int count) throws Exception {
        final Path socket = Files.createTempDirectory("shm-measure").resolve("tp.sock");
        final Process peer = start("sink", socket.toString(), Long.toString(count));
        try (ShmSocket client = ShmSocket.connect(UnixDomainSocketAddress.of(socket), new ShmOptions().ringCapacity(1 << 22))) {
            final ShmRingWriter writer = client.writer();
            final long start = System.nanoTime();
            for (long i = 0; i < count; i++) {
                long index;
                while ((index = writer.tryClaim(size)) < 0) {
                    Thread.onSpinWait();
                }
                writer.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED, index, i);
                writer.commit(index);
            }
            final BufferedReader out = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
            final String line = out.readLine();
            final long endNs = Long.parseLong(line.trim());
            final double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("peregrine-shm throughput size=%d: %.1f M msgs/s, %.1f MB/s (sender %.1f M msgs/s) %s%n", size,
                count / seconds / 1e6, count * (double)size / seconds / 1e6, count / seconds / 1e6, endNs > 0 ? "" : "?");
        } finally {
            peer.destroyForcibly().waitFor();
        }
    }

    private static volatile long wakeStamp;
    private static volatile long wakeSeen;

    private static void parkFloor(final long gapMicros, final int count) {
        final Thread sleeper = new Thread(() -> {
            long last = 0;
            while (true) {
                long stamp;
                while ((stamp = wakeStamp) == last) {
                    java.util.concurrent.locks.LockSupport.park();
                }
                last = stamp;
                wakeSeen = System.nanoTime() - stamp;
            }
        }, "parked");
        sleeper.setDaemon(true);
        sleeper.start();
        final long[] latency = new long[count];
        for (int i = 0; i < count; i++) {
            final long until = System.nanoTime() + gapMicros * 1000;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            wakeSeen = -1;
            wakeStamp = System.nanoTime();
            java.util.concurrent.locks.LockSupport.unpark(sleeper);
            long seen;
            while ((seen = wakeSeen) < 0) {
                Thread.onSpinWait();
            }
            latency[i] = seen;
        }
        Arrays.sort(latency);
        System.out.printf("park/unpark after %d us idle, one way, ns: p50=%d p90=%d p99=%d%n", gapMicros,
            latency[count / 2], latency[count * 9 / 10], latency[count * 99 / 100]);
    }

    private static void idle(final String wait) throws Exception {
        final Path socket = Files.createTempDirectory("shm-measure").resolve("idle.sock");
        final Process peer = start("echo", socket.toString(), wait);
        try (ShmSocket client = ShmSocket.connect(UnixDomainSocketAddress.of(socket), new ShmOptions())) {
            final long index = client.writer().tryClaim(8);
            client.writer().commit(index);
            Thread.sleep(1000);
            final long before = peer.info().totalCpuDuration().orElseThrow().toNanos();
            Thread.sleep(5000);
            final long after = peer.info().totalCpuDuration().orElseThrow().toNanos();
            System.out.printf("idle responder (%s): %.2f%% of one CPU over 5 s%n", wait, (after - before) / 5e9 * 100);
        } finally {
            peer.destroyForcibly().waitFor();
        }
    }

    private static void local(final int size, final int count) throws Exception {
        final MemorySegment ring = java.lang.foreign.Arena.ofAuto().allocate(ShmRingDescriptor.fileLength(1 << 22), 4096);
        ShmRingDescriptor.initialise(ring, 1 << 22, 1024, 1 << 20);
        final ShmRingWriter writer = new ShmRingWriter(ring);
        final ShmRingReader reader = new ShmRingReader(ring);
        if (Boolean.getBoolean("single")) {
            final long[] seen = {0};
            final ShmMessageHandler counter = (buffer, offset, length) -> seen[0]++;
            for (int round = 0; round < 3; round++) {
                final long c0 = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
                final long t0 = System.nanoTime();
                for (long i = 0; i < count; i += 1000) {
                    for (int j = 0; j < 1000; j++) {
                        final long index = writer.tryClaim(size);
                        writer.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED, index, i);
                        writer.commit(index);
                    }
                    while (reader.poll(counter, 4096) > 0) {
                        // drain
                    }
                }
                System.out.printf("one thread, write+read: %.1f ns per message wall, %.1f ns cpu%n", (System.nanoTime() - t0) / (double)count,
                    (java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - c0) / (double)count);
            }
            return;
        }
        final Thread consumer = new Thread(() -> {
            final long[] next = {0};
            final ShmMessageHandler check = (buffer, offset, length) -> next[0]++;
            while (next[0] < count) {
                if (reader.poll(check, 4096) == 0) {
                    Thread.onSpinWait();
                }
            }
        });
        consumer.start();
        final long start = System.nanoTime();
        for (long i = 0; i < count; i++) {
            long index;
            while ((index = writer.tryClaim(size)) < 0) {
                Thread.onSpinWait();
            }
            writer.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED, index, i);
            writer.commit(index);
        }
        consumer.join();
        System.out.printf("in-process throughput size=%d: %.1f M msgs/s%n", size, count / ((System.nanoTime() - start) / 1e9) / 1e6);
    }

    private static void echo(final Path socketPath, final String wait) {
        try (ShmServerSocket server = new ShmServerSocket(UnixDomainSocketAddress.of(socketPath), new ShmOptions().ringCapacity(1 << 20))) {
            System.out.println("ready");
            System.out.flush();
            try (ShmSocket socket = server.accept()) {
                final ShmRingWriter writer = socket.writer();
                final ShmRingReader reader = socket.reader();
                final ShmWaitStrategy strategy = switch (wait) {
                    case "futex" -> new ShmFutexWait(0);
                    case "backoff" -> new ShmBackoffWait();
                    default -> new ShmBusySpinWait();
                };
                final ShmMessageHandler echo = (MemorySegment buffer, long offset, int length) -> {
                    long index;
                    while ((index = writer.tryClaim(length)) < 0) {
                        Thread.onSpinWait();
                    }
                    MemorySegment.copy(buffer, offset, writer.buffer(), index, length);
                    writer.commit(index);
                };
                while (true) {
                    strategy.idle(reader, reader.poll(echo, 16), 100_000_000L);
                }
            }
        }
    }

    private static void sink(final Path socketPath, final long count) {
        try (ShmServerSocket server = new ShmServerSocket(UnixDomainSocketAddress.of(socketPath), new ShmOptions().ringCapacity(1 << 22))) {
            System.out.println("ready");
            System.out.flush();
            try (ShmSocket socket = server.accept()) {
                final ShmRingReader reader = socket.reader();
                final long[] next = {0};
                final ShmMessageHandler check = (buffer, offset, length) -> {
                    if (buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset) != next[0]++) {
                        throw new IllegalStateException("out of order at " + next[0]);
                    }
                };
                while (next[0] < count) {
                    if (reader.poll(check, 4096) == 0) {
                        Thread.onSpinWait();
                    }
                }
                System.out.println(System.nanoTime());
                System.out.flush();
            }
        }
    }
}
