package dev.peregrine.bench.transports;

import dev.peregrine.peers.BenchConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bench pingpong --client-wait block}: the TCP client that waits for an echo sleeps in a blocking select on
 * its socket, even in a busy-spinning run, and the echo that arrives wakes it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PeregrineTcpBlockingClientTest {
    @TempDir
    Path directory;

    @Test
    void shouldSleepInASelectUntilTheEchoArrivesEvenWhenTheRunBusySpins() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            final BenchConfig config = new BenchConfig("127.0.0.1", server.getLocalPort(), 64, directory, true);
            try (BlockingClients.Client client = new PeregrineTcpBench().connectBlocking(config);
                 Socket peer = server.accept()) {
                final CompletableFuture<Long> echoed = new CompletableFuture<>();
                final Thread waiter = new Thread(() -> {
                    try {
                        client.send(7);
                        long sequence;
                        while ((sequence = client.poll()) < 0) {
                            client.awaitInput();
                        }
                        echoed.complete(sequence);
                    } catch (final Throwable ex) {
                        echoed.completeExceptionally(ex);
                    }
                }, "waiter");
                waiter.start();
                final DataInputStream in = new DataInputStream(peer.getInputStream());
                final byte[] message = new byte[in.readInt()];
                in.readFully(message);

                awaitInSelect(waiter); // the echo is not sent yet: only its arrival can wake the thread for good
                final DataOutputStream out = new DataOutputStream(peer.getOutputStream());
                out.writeInt(message.length);
                out.write(message);
                out.flush();

                assertThat(echoed.get(20, TimeUnit.SECONDS)).isEqualTo(7);
                waiter.join();
            }
        }
    }

    /** Waits until the thread is inside a selector's blocking select, seen in its stack (selectNow has its own name). */
    private static void awaitInSelect(final Thread thread) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!inSelect(thread.getStackTrace())) {
            assertThat(System.nanoTime()).as("the client never slept in select").isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    private static boolean inSelect(final StackTraceElement[] stack) {
        for (final StackTraceElement frame : stack) {
            if (frame.getClassName().equals("sun.nio.ch.SelectorImpl") && frame.getMethodName().equals("select")) {
                return true;
            }
        }
        return false;
    }
}
