package dev.peregrine.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;

/**
 * The other process of the two-process tests, started in a child JVM.
 * <ul>
 * <li>{@code write <socket> <count>}: connects, writes {@code count} messages carrying their sequence number
 * (sizes 8 to 263), prints {@code written}, then waits to be killed (or closes if a fourth argument
 * {@code close} is given; with {@code claim} it first claims one more message, fills it and never commits it,
 * then prints {@code claimed} and waits to be killed).</li>
 * <li>{@code echo <socket> <ringDir>}: listens, accepts one client and echoes every message until it goes.</li>
 * </ul>
 */
public final class ShmPeerProcess {
    private ShmPeerProcess() {
    }

    /**
     * Runs a mode.
     *
     * @param args mode and arguments
     * @throws Exception on failure (the parent sees the exit code)
     */
    public static void main(final String[] args) throws Exception {
        final UnixDomainSocketAddress address = UnixDomainSocketAddress.of(Path.of(args[1]));
        switch (args[0]) {
            case "write" -> write(address, Integer.parseInt(args[2]), args.length > 3 ? args[3] : "wait");
            case "echo" -> echo(address, Path.of(args[2]));
            default -> throw new IllegalArgumentException("mode=" + args[0]);
        }
    }

    private static void write(final UnixDomainSocketAddress address, final int count, final String then) throws Exception {
        final ShmSocket socket = ShmSocket.connect(address, new ShmOptions());
        final ShmRingWriter writer = socket.writer();
        for (int i = 0; i < count; i++) {
            final int length = 8 + i % 256;
            long index;
            while ((index = writer.tryClaim(length)) < 0) {
                Thread.onSpinWait();
            }
            writer.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED, index, i);
            writer.commit(index);
        }
        System.out.println("written");
        System.out.flush();
        if ("close".equals(then)) {
            socket.close();
            return;
        }
        if ("claim".equals(then)) {
            long index;
            while ((index = writer.tryClaim(200)) < 0) {
                Thread.onSpinWait();
            }
            writer.buffer().asSlice(index, 200).fill((byte)0x7F); // a half-written record, never committed
            System.out.println("claimed");
            System.out.flush();
        }
        Thread.sleep(120_000);
    }

    private static void echo(final UnixDomainSocketAddress address, final Path ringDirectory) {
        try (ShmServerSocket server = new ShmServerSocket(address, new ShmOptions().ringCapacity(64 * 1024)
            .maxMessageLength(4096).ringDirectory(ringDirectory))) {
            System.out.println("listening");
            System.out.flush();
            try (ShmSocket socket = server.accept()) {
                final ShmRingWriter writer = socket.writer();
                final ShmRingReader reader = socket.reader();
                final ShmMessageHandler echo = (MemorySegment buffer, long offset, int length) -> {
                    long index;
                    while ((index = writer.tryClaim(length)) < 0) {
                        Thread.onSpinWait();
                    }
                    MemorySegment.copy(buffer, offset, writer.buffer(), index, length);
                    writer.commit(index);
                };
                final ShmBackoffWait wait = new ShmBackoffWait();
                long idleSince = System.nanoTime();
                while (true) {
                    final int work = reader.poll(echo, 64);
                    if (work == 0 && System.nanoTime() - idleSince > 10_000_000L) {
                        idleSince = System.nanoTime();
                        if (socket.isPeerGone()) {
                            return;
                        }
                    } else if (work > 0) {
                        idleSince = System.nanoTime();
                    }
                    wait.idle(reader, work, 10_000_000L);
                }
            }
        }
    }
}
