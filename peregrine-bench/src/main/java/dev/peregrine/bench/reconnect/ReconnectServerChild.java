package dev.peregrine.bench.reconnect;

import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.reactor.IdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The server of {@code bench reconnect --restart}, in a JVM of its own: {@code STORE PORT COUNT RATE BUSY_SPIN}. It
 * opens (or goes on with) the file-backed store, listens on the port, prints {@code LISTENING} and publishes, paced,
 * from the store's next number up to the count, driving its reactor on the main thread until its stdin closes (the
 * parent let go of it, or died). Killing it with -9 at any point loses nothing the store holds: a restart goes on from
 * there.
 */
public final class ReconnectServerChild {
    private ReconnectServerChild() {
    }

    /**
     * Runs the server.
     *
     * @param args the store file, the port, the count, the rate, and {@code true} to busy-spin
     * @throws IOException if stdin cannot be read
     */
    public static void main(final String[] args) throws IOException {
        final Path file = Path.of(args[0]);
        final int port = Integer.parseInt(args[1]);
        final long count = Long.parseLong(args[2]);
        final long rate = Long.parseLong(args[3]);
        final IdleStrategy idle = ReconnectRunner.idle(Boolean.parseBoolean(args[4]));
        final Thread parentWatch = new Thread(() -> drain(System.in), "reconnect-child-stdin");
        parentWatch.setDaemon(true);
        parentWatch.start();
        final int messages = 1 << 20;
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.mapped(file, ReconnectServer.SESSION, messages,
                (long)messages * ReconnectFeed.LENGTH);
             Reactor reactor = new Reactor(new ReactorOptions().name("reconnect-server-child"))) {
            final ReconnectServer server = new ReconnectServer(reactor, store, count, rate, null);
            server.listen(new InetSocketAddress("127.0.0.1", port));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (server.localAddress() == null && server.listenFailure() == null && System.nanoTime() < deadline) {
                reactor.doWork();
            }
            if (server.localAddress() == null) {
                System.out.println("FAILED listen on port " + port + ": " + server.listenFailure());
                return;
            }
            System.out.println("LISTENING " + (store.nextSequence() - 1));
            System.out.flush();
            while (parentWatch.isAlive()) {
                idle.idle(reactor.doWork());
            }
            server.close();
        }
    }

    private static void drain(final InputStream in) {
        try {
            while (in.read() >= 0) {
                // the parent writes nothing: end of input means it is done with this child
            }
        } catch (final IOException ex) {
            // the pipe is gone: as good as closed
        }
    }
}
