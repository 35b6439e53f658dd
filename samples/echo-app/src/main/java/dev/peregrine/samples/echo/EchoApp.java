package dev.peregrine.samples.echo;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.reactor.BlockingSelectIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.shm.ShmBackoffWait;
import dev.peregrine.shm.ShmOptions;
import dev.peregrine.shm.ShmServerSocket;
import dev.peregrine.shm.ShmSocket;
import dev.peregrine.tcp.Framing;
import dev.peregrine.tcp.TcpOptions;
import dev.peregrine.tcp.TcpTransport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Starts a second process of itself that serves a TCP echo (Peregrine's reactor and {@link TcpTransport}) and a
 * shared-memory echo ({@link ShmServerSocket}), then sends a message over each and checks that it comes back.
 * Prints one line per round trip; exits 0 when both came back intact.
 */
public final class EchoApp {
    private static final String SERVE = "serve";
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(20);

    private EchoApp() {
    }

    /**
     * Without arguments: the client, which starts the server process. With {@code serve SOCKET}: the server.
     *
     * @param args nothing, or {@code serve} and the Unix socket file of the shared-memory rendezvous
     * @throws Exception if a round trip fails
     */
    public static void main(final String[] args) throws Exception {
        if (args.length == 2 && SERVE.equals(args[0])) {
            serve(Path.of(args[1]));
        } else {
            System.exit(client());
        }
    }

    private static int client() throws Exception {
        final Path folder = Files.createTempDirectory("peregrine-echo-app");
        final Path socket = folder.resolve("echo.sock");
        final List<String> command = List.of(ProcessHandle.current().info().command().orElse("java"),
            "--enable-native-access=dev.peregrine.core", "-XX:AutoBoxCacheMax=65536", "--module-path",
            System.getProperty("jdk.module.path"),
            "--module", EchoApp.class.getModule().getName() + "/" + EchoApp.class.getName(), SERVE, socket.toString());
        final Process server = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))) {
            final String ready = lines.readLine();
            if (ready == null || !ready.startsWith("READY ")) {
                System.err.println("echo-app: the server process did not start: " + ready);
                return 1;
            }
            final int port = Integer.parseInt(ready.substring("READY ".length()).trim());
            final byte[] tcpMessage = "hello over TCP".getBytes(StandardCharsets.UTF_8);
            final byte[] tcpEcho = tcpRoundTrip(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), tcpMessage);
            System.out.println("tcp: sent '" + text(tcpMessage) + "' to process " + server.pid() + ", got back '"
                + text(tcpEcho) + "'");
            final byte[] shmMessage = "hello over shared memory".getBytes(StandardCharsets.UTF_8);
            final byte[] shmEcho = shmRoundTrip(UnixDomainSocketAddress.of(socket), shmMessage);
            System.out.println("shm: sent '" + text(shmMessage) + "' to process " + server.pid() + ", got back '"
                + text(shmEcho) + "'");
            final boolean ok = Arrays.equals(tcpMessage, tcpEcho) && Arrays.equals(shmMessage, shmEcho);
            System.out.println(ok ? "echo-app: both round trips OK" : "echo-app: an echo differs from what was sent");
            return ok ? 0 : 1;
        } finally {
            server.getOutputStream().close(); // the server exits when its stdin ends
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
            Files.deleteIfExists(socket);
            Files.deleteIfExists(folder);
        }
    }

    /** One message over TCP, length-prefixed, on a reactor driven from this thread. */
    private static byte[] tcpRoundTrip(final SocketAddress address, final byte[] message) throws IOException {
        final CompletableFuture<byte[]> echo = new CompletableFuture<>();
        final TcpTransport[] tcp = new TcpTransport[1];
        final ChannelHandler client = new ChannelHandler() {
            @Override
            public void onConnected(final long channelId, final SocketAddress remoteAddress) {
                tcp[0].send(channelId, MemorySegment.ofArray(message), 0, message.length);
            }

            @Override
            public void onConnectFailed(final long channelId, final String reason) {
                echo.completeExceptionally(new IOException("cannot connect to " + address + ": " + reason));
            }

            @Override
            public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
                echo.complete(buffer.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
            }
        };
        try (Reactor reactor = new Reactor(new ReactorOptions().name("echo-client"))) {
            tcp[0] = new TcpTransport(reactor, tcpOptions(), client);
            tcp[0].connect(address);
            final long deadline = System.nanoTime() + TIMEOUT_NS;
            while (!echo.isDone() && System.nanoTime() < deadline) {
                reactor.doWork();
            }
            tcp[0].close();
        }
        if (!echo.isDone()) {
            throw new IOException("no TCP echo from " + address + " within 20 s");
        }
        return echo.join();
    }

    /** One message over shared memory with the blocking socket-like API. */
    private static byte[] shmRoundTrip(final UnixDomainSocketAddress address, final byte[] message) throws IOException {
        try (ShmSocket socket = ShmSocket.connect(address, shmOptions())) {
            socket.getOutputStream().write(message);
            socket.getOutputStream().flush();
            return socket.getInputStream().readNBytes(message.length);
        }
    }

    /** The server: a TCP echo on a reactor thread, a shared-memory echo on this one, until stdin ends. */
    private static void serve(final Path socketFile) throws Exception {
        final CompletableFuture<Integer> port = new CompletableFuture<>();
        final TcpTransport[] tcp = new TcpTransport[1];
        final ChannelHandler echo = new ChannelHandler() {
            @Override
            public void onListening(final long serverId, final SocketAddress localAddress) {
                port.complete(((InetSocketAddress)localAddress).getPort());
            }

            @Override
            public void onListenFailed(final long serverId, final String reason) {
                port.completeExceptionally(new IOException(reason));
            }

            @Override
            public void onMessage(final long channelId, final MemorySegment buffer, final long offset, final int length) {
                tcp[0].send(channelId, buffer, offset, length); // framed again as it came
            }
        };
        try (Reactor reactor = new Reactor(new ReactorOptions().name("echo-server")
                .idleStrategy(new BlockingSelectIdleStrategy()));
             ShmServerSocket shm = new ShmServerSocket(UnixDomainSocketAddress.of(socketFile), shmOptions())) {
            tcp[0] = new TcpTransport(reactor, tcpOptions(), echo);
            tcp[0].listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            reactor.start();
            System.out.println("READY " + port.get(20, TimeUnit.SECONDS));
            System.out.flush();
            final Thread shmEcho = new Thread(() -> {
                try (ShmSocket peer = shm.accept()) {
                    peer.getInputStream().transferTo(peer.getOutputStream());
                } catch (final IOException | RuntimeException ex) {
                    System.err.println("echo-app server: shared-memory echo ended: " + ex);
                }
            }, "shm-echo");
            shmEcho.setDaemon(true);
            shmEcho.start();
            System.in.transferTo(java.io.OutputStream.nullOutputStream());
        }
    }

    private static TcpOptions tcpOptions() {
        return new TcpOptions().framing(Framing.parse("length:4be")).maxFrameLength(64 * 1024);
    }

    private static ShmOptions shmOptions() {
        return new ShmOptions().ringCapacity(1 << 16).maxMessageLength(4096).waitStrategy(ShmBackoffWait::new);
    }

    private static String text(final byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
