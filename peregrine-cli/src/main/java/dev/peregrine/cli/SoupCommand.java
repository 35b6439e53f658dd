package dev.peregrine.cli;

import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.mold.MoldUDP64SubscriberOptions;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.soup.MoldToSoupGateway;
import dev.peregrine.soup.SoupBinTcpClient;
import dev.peregrine.soup.SoupBinTcpClientListener;
import dev.peregrine.soup.SoupBinTcpClientOptions;
import dev.peregrine.soup.SoupBinTcpServer;
import dev.peregrine.soup.SoupBinTcpServerOptions;
import dev.peregrine.soup.SoupBinTcpSession;
import dev.peregrine.soup.SoupLoginDecision;
import dev.peregrine.udp.UdpOptions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * {@code ./peregrine soup serve|connect}: a SoupBinTCP test feed, and a client that follows it across reconnects.
 */
@Command(name = "soup", mixinStandardHelpOptions = true,
    description = {"SoupBinTCP 3.00 server and client: run 'soup serve --count 100000' in one terminal and"
        + " 'soup connect --verify' in another; stop and restart either, the client goes on where it was."},
    subcommands = {SoupCommand.Serve.class, SoupCommand.Connect.class})
public final class SoupCommand implements Callable<Integer> {
    /** The session of the test feed. */
    static final String SESSION = "PEREGRINE";
    /** Length of a test feed message: its sequence number, then a value derived from it, both big-endian. */
    static final int MESSAGE_LENGTH = 16;
    private static final long MIX = 0x9E37_79B9_7F4A_7C15L;
    private static final ValueLayout.OfLong BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final long SECOND_NS = 1_000_000_000L;

    @Spec
    CommandSpec spec;

    /** Creates the command (picocli). */
    public SoupCommand() {
    }

    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required: serve or connect");
    }

    /** Writes test feed message {@code sequence}. */
    static void feedMessage(final MemorySegment buffer, final long sequence) {
        buffer.set(BE, 0, sequence);
        buffer.set(BE, 8, sequence * MIX);
    }

    /**
     * Whether a message is test feed message {@code sequence}: {@code soup serve}'s (its number, then the number times a
     * constant), or {@code mold publish}'s as a gateway serves it (its number, then zeros).
     */
    static boolean isFeedMessage(final MemorySegment buffer, final long offset, final int length, final long sequence) {
        if (length < 8 || buffer.get(BE, offset) != sequence) {
            return false;
        }
        if (length == MESSAGE_LENGTH && buffer.get(BE, offset + 8) == sequence * MIX) {
            return true;
        }
        for (int i = 8; i < length; i++) {
            if (buffer.get(ValueLayout.JAVA_BYTE, offset + i) != 0) {
                return false;
            }
        }
        return true;
    }

    /** Runs duty cycles until {@code done} or an interrupt, parking briefly when idle; calls {@code second} each second. */
    static void loop(final Reactor reactor, final long seconds, final java.util.function.BooleanSupplier done,
        final Runnable second) {
        final long start = System.nanoTime();
        long nextLine = start + SECOND_NS;
        while (!done.getAsBoolean() && !Thread.currentThread().isInterrupted()) {
            if (reactor.doWork() == 0) {
                LockSupport.parkNanos(20_000);
            }
            final long now = System.nanoTime();
            if (now - nextLine >= 0) {
                nextLine += SECOND_NS;
                second.run();
            }
            if (seconds > 0 && now - start >= seconds * SECOND_NS) {
                break;
            }
        }
    }

    /** {@code soup serve}. */
    @Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Serve a test feed over SoupBinTCP: --count messages at --rate, then End of Session.")
    public static final class Serve implements Callable<Integer>, Validated {
        @Spec
        CommandSpec spec;
        @Range(min = 1, max = 65535)
        @Option(names = "--port", description = "port to listen on (default ${DEFAULT-VALUE})", defaultValue = "6000")
        int port;
        @Option(names = "--bind", converter = Converters.LocalAddress.class,
            description = "address to listen on (default ${DEFAULT-VALUE})", defaultValue = "127.0.0.1")
        String bind;
        @Range(note = "0 for no end")
        @Option(names = "--count", description = "messages in the session, then End of Session; 0 for no end (default ${DEFAULT-VALUE})",
            defaultValue = "0")
        long count;
        @Range(min = 1, max = Range.PER_NANOSECOND)
        @Option(names = "--rate", description = "messages per second (default ${DEFAULT-VALUE})", defaultValue = "1000")
        long rate;
        @Option(names = "--store", converter = Converters.StoreFile.class,
            description = "keep the session in this file, so that a restarted server goes on where it stopped")
        Path store;
        @Range(max = Range.DAY, note = "0 for never")
        @Option(names = "--seconds", description = "stop after this long, 0 for never (default ${DEFAULT-VALUE})", defaultValue = "0")
        int seconds;
        @Option(names = "--from-mold", paramLabel = "GROUP:PORT", converter = MoldEndpoint.class,
            description = {"be a gateway: serve the MoldUDP64 feed of this multicast group (or unicast address, or 'none':"
                + " no group joined) and port, gaps recovered, instead of the test feed; its End of Session ends the session"})
        InetSocketAddress fromMold;
        @Option(names = "--mold-request", paramLabel = "HOST:PORT", converter = HostPort.class,
            description = "with --from-mold: the MoldUDP64 re-request server (default: 127.0.0.1 and the feed port + 1)")
        InetSocketAddress moldRequest;
        @Option(names = "--mold-interface", converter = Converters.InterfaceName.class,
            description = "with --from-mold: the interface to join the group on (default ${DEFAULT-VALUE})", defaultValue = "lo")
        String moldInterface;
        @Range(note = "0: the first message seen (joins mid-session), 1: the whole session, n: from n")
        @Option(names = "--mold-start", description = {"with --from-mold: the first MoldUDP64 message to serve; a login for"
            + " an earlier one gets Login Rejected S (default ${DEFAULT-VALUE}: the first seen)"}, defaultValue = "0")
        long moldStart;

        /** Creates the command (picocli). */
        public Serve() {
        }

        @Override
        public void validate() {
            if (fromMold == null) {
                for (final String option : new String[] {"--mold-request", "--mold-interface", "--mold-start"}) {
                    if (Cli.given(spec, option)) {
                        throw Cli.invalid(spec.commandLine(), option, "it is for the gateway; give --from-mold GROUP:PORT too");
                    }
                }
                return;
            }
            for (final String option : new String[] {"--count", "--rate"}) {
                if (Cli.given(spec, option)) {
                    throw Cli.invalid(spec.commandLine(), option, "it is for the test feed; a gateway (--from-mold) serves the"
                        + " MoldUDP64 feed, which ends with its End of Session");
                }
            }
            if (moldRequest().equals(fromMold) && !fromMold.getAddress().isMulticastAddress()) {
                throw Cli.invalid(spec.commandLine(), "--mold-request", moldRequest() + " is the feed's own address; the"
                    + " re-request server listens on a port of its own (default: the feed port + 1)");
            }
        }

        private InetSocketAddress moldRequest() {
            if (moldRequest != null) {
                return moldRequest;
            }
            if (fromMold.getPort() == 65535) {
                throw Cli.invalid(spec.commandLine(), "--from-mold", "port 65535 leaves no feed port + 1 for the re-request"
                    + " server; give --mold-request HOST:PORT");
            }
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), fromMold.getPort() + 1);
        }

        @Override
        public Integer call() {
            return run(System.out);
        }

        int run(final PrintStream out) {
            try (Reactor reactor = new Reactor();
                 MoldUDP64MessageStore messages = store != null ? MoldUDP64MessageStore.mapped(store, SESSION, 1 << 20, 1L << 26)
                     : MoldUDP64MessageStore.inMemory(SESSION, 1 << 20, 1L << 26)) {
                final SoupBinTcpSession[] session = new SoupBinTcpSession[1];
                final MoldToSoupGateway[] gateway = new MoldToSoupGateway[1];
                final long[] unsequenced = new long[1];
                // a gateway that joins mid-session knows its first sequence only once it has seen the feed: 'S' until then
                final SoupBinTcpServer server = new SoupBinTcpServer(reactor, new SoupBinTcpServerOptions(),
                    (user, password, requested) -> (requested.isEmpty() || requested.equals(SESSION))
                        && (gateway[0] == null || gateway[0].firstSequence() != 0)
                        ? SoupLoginDecision.accept(session[0]) : SoupLoginDecision.SESSION_NOT_AVAILABLE,
                    (id, s, buffer, offset, length) -> unsequenced[0]++);
                session[0] = server.addSession(SESSION, messages);
                server.listen(new InetSocketAddress(MoldCommand.address(bind), port));
                while (server.localAddress() == null && server.listenFailure() == null) {
                    reactor.doWork();
                }
                if (server.listenFailure() != null) {
                    server.close();
                    throw Cli.invalid(spec.commandLine(), "--port", port + " cannot be used: " + server.listenFailure()
                        + "; expected a free TCP port (another server may be running)");
                }
                if (fromMold != null) {
                    gateway[0] = openGateway(reactor, session[0]);
                    out.println("soup serve: session " + SESSION + " on " + server.localAddress() + ", a gateway from"
                        + " MoldUDP64 " + fromMold + " (re-requests to " + moldRequest() + "), "
                        + (gateway[0].firstSequence() == 0 ? "from the first message seen"
                            : "from sequence " + messages.nextSequence()));
                    final Supplier<String> summary = () -> "next=" + messages.nextSequence() + " first="
                        + gateway[0].firstSequence() + " mold=" + gateway[0].state() + " recovered="
                        + gateway[0].subscriber().recovered() + " clients=" + session[0].clientCount()
                        + (session[0].isEnded() ? " ended" : "") + " logins=" + server.acceptedLogins() + " rejected="
                        + server.rejectedLogins() + " faults=" + server.protocolErrors() + " timeouts=" + server.timeouts()
                        + (gateway[0].failure() != null ? " failure: " + gateway[0].failure() : "");
                    runUntilStopped(reactor, out, summary);
                    gateway[0].close();
                    server.close();
                    return 0;
                }
                out.println("soup serve: session " + SESSION + " on " + server.localAddress() + ", next sequence "
                    + messages.nextSequence() + (count > 0 ? ", " + count + " messages" : "") + " at " + rate + "/s");
                final MemorySegment message = Arena.ofAuto().allocate(MESSAGE_LENGTH);
                final long startNs = reactor.nowNs();
                final long firstNew = messages.nextSequence();
                reactor.add(nowNs -> {
                    int work = 0;
                    final long due = firstNew + (long)((nowNs - startNs) / 1e9 * rate);
                    while (!session[0].isEnded() && messages.nextSequence() <= due && work < 1024) {
                        if (count > 0 && messages.nextSequence() > count) {
                            session[0].end();
                            break;
                        }
                        feedMessage(message, messages.nextSequence());
                        session[0].publish(message, 0, MESSAGE_LENGTH);
                        work++;
                    }
                    if (count > 0 && messages.nextSequence() > count && !session[0].isEnded()) {
                        session[0].end();
                    }
                    return work;
                });
                final Supplier<String> summary = () -> "next=" + messages.nextSequence() + " clients="
                    + session[0].clientCount() + (session[0].isEnded() ? " ended" : "") + " logins="
                    + server.acceptedLogins() + " rejected=" + server.rejectedLogins() + " faults="
                    + server.protocolErrors() + " timeouts=" + server.timeouts() + " unsequenced=" + unsequenced[0];
                runUntilStopped(reactor, out, summary);
                server.close();
            }
            return 0;
        }

        /** The MoldUDP64 subscriber of {@code --from-mold}, as {@code mold listen} opens its own. */
        private MoldToSoupGateway openGateway(final Reactor reactor, final SoupBinTcpSession session) {
            final InetAddress address = fromMold.getAddress();
            final InetAddress group = address.isMulticastAddress() ? address : null;
            // the feed's port on the wildcard of the group's family, or for a unicast feed the request server's
            final boolean ipv6 = (group != null ? group : moldRequest().getAddress()) instanceof Inet6Address;
            final InetSocketAddress bind = ipv6 ? new InetSocketAddress(ipv6Any(), fromMold.getPort())
                : new InetSocketAddress(fromMold.getPort());
            try {
                return new MoldToSoupGateway(reactor, session, new MoldUDP64SubscriberOptions()
                    .feed(new UdpOptions().localAddress(bind).reuseAddress(true).receiveBufferSize(4 << 20))
                    .request(new UdpOptions().receiveBufferSize(MoldUDP64SubscriberOptions.DEFAULT_REQUEST_RECEIVE_BUFFER))
                    .group(group, MoldCommand.multicastInterface(spec, group, moldInterface))
                    .requestServer(moldRequest()).startSequence(moldStart).requestTimeoutNs(50_000_000L));
            } catch (final UncheckedIOException ex) {
                throw Cli.invalid(spec.commandLine(), "--from-mold", fromMold + " cannot be listened on: " + ex.getMessage()
                    + "; expected a free UDP port");
            }
        }

        private static InetAddress ipv6Any() {
            try {
                return InetAddress.getByAddress(new byte[16]);
            } catch (final UnknownHostException ex) {
                throw new IllegalStateException("16 bytes are an IPv6 address", ex);
            }
        }

        /**
         * Serves until {@code --seconds}, an interrupt or the end of the process (Ctrl-C), then prints the summary a
         * last time: a per-second line alone can predate the last login by up to a second, and a run shorter than a
         * second printed none, so the figures a user read at the end were stale ({@code logins=0} after a login).
         */
        private void runUntilStopped(final Reactor reactor, final PrintStream out, final Supplier<String> summary) {
            final AtomicBoolean stop = new AtomicBoolean();
            final CountDownLatch stopped = new CountDownLatch(1);
            final Thread hook = new Thread(() -> {
                stop.set(true);
                try {
                    stopped.await(2, TimeUnit.SECONDS); // the loop sees the flag within a cycle and prints the last line
                } catch (final InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }, "soup-serve-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                loop(reactor, seconds, stop::get, () -> out.println("soup serve: " + summary.get()));
                out.println("soup serve: stopped: " + summary.get());
            } finally {
                stopped.countDown();
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (final IllegalStateException ex) {
                    // the JVM is shutting down: the hook is running and waits for the line above
                }
            }
        }
    }

    /** {@code HOST:PORT} ({@code [v6]:PORT} too): an address to send to, resolved. */
    public static class HostPort implements CommandLine.ITypeConverter<InetSocketAddress> {
        /** Creates the converter (picocli). */
        public HostPort() {
        }

        @Override
        public InetSocketAddress convert(final String value) {
            final int colon = value.lastIndexOf(':');
            final String host = colon < 0 ? "" : value.substring(0, colon).replaceFirst("^\\[(.*)]$", "$1");
            final String port = colon < 0 ? "" : value.substring(colon + 1);
            if (host.isEmpty() || !port.matches("[0-9]{1,5}") || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not " + expected() + " with a port of 1 to"
                    + " 65535, e.g. " + example());
            }
            return new InetSocketAddress(address(host), Integer.parseInt(port));
        }

        /** The host, resolved; a subclass may take a word of its own. */
        InetAddress address(final String host) {
            try {
                return InetAddress.getByName(host);
            } catch (final UnknownHostException ex) {
                throw new CommandLine.TypeConversionException("'" + host + "' is not a known host; expected " + expected());
            }
        }

        String expected() {
            return "HOST:PORT";
        }

        String example() {
            return "127.0.0.1:5001";
        }
    }

    /** {@code GROUP:PORT} of {@code --from-mold}: a multicast group, a unicast address or {@code none} (the wildcard). */
    public static final class MoldEndpoint extends HostPort {
        /** Creates the converter (picocli). */
        public MoldEndpoint() {
        }

        @Override
        InetAddress address(final String host) {
            return "none".equals(host) ? InetAddress.getLoopbackAddress() : super.address(host);
        }

        @Override
        String expected() {
            return "GROUP:PORT (a multicast group, a unicast address or none)";
        }

        @Override
        String example() {
            return "239.1.1.1:5000 or none:5000";
        }
    }

    /** {@code soup connect}. */
    @Command(name = "connect", mixinStandardHelpOptions = true,
        description = "Log in to a SoupBinTCP server and follow its session, reconnecting by itself; a summary line a second.")
    public static final class Connect implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Option(names = "--host", converter = Converters.Host.class,
            description = "server host (default ${DEFAULT-VALUE})", defaultValue = "127.0.0.1")
        String host;
        @Range(min = 1, max = 65535)
        @Option(names = "--port", description = "server port (default ${DEFAULT-VALUE})", defaultValue = "6000")
        int port;
        @Range(note = "0: the next message published, 1: the whole session")
        @Option(names = "--from", description = "first sequence number wanted (default ${DEFAULT-VALUE})", defaultValue = "1")
        long from;
        @Range(note = "0 for the whole session")
        @Option(names = "--count", description = "stop after this many messages; 0: at End of Session (default ${DEFAULT-VALUE})",
            defaultValue = "0")
        long count;
        @Option(names = "--verify", description = "exit 1 on any gap, repeat or message that is not the test feed's")
        boolean verify;
        @Range(max = Range.DAY, note = "0 for never")
        @Option(names = "--seconds", description = "stop after this long, 0 for never (default ${DEFAULT-VALUE})", defaultValue = "0")
        int seconds;

        /** Creates the command (picocli). */
        public Connect() {
        }

        @Override
        public Integer call() {
            return run(System.out);
        }

        int run(final PrintStream out) {
            final long[] received = new long[1];
            final long[] expected = {from};
            final long[] problems = new long[1];
            final String[] firstProblem = new String[1];
            final InetAddress address = MoldCommand.address(host);
            try (Reactor reactor = new Reactor()) {
                final SoupBinTcpClient client = new SoupBinTcpClient(reactor, new SoupBinTcpClientOptions()
                    .addresses(new InetSocketAddress(address, port)).fromSequence(from), new SoupBinTcpClientListener() {
                        @Override
                        public void onSequencedData(final long sequence, final MemorySegment buffer, final long offset, final int length) {
                            received[0]++;
                            if (expected[0] != 0 && sequence != expected[0]) {
                                problem("sequence " + sequence + " where " + expected[0] + " was next");
                            } else if (!isFeedMessage(buffer, offset, length, sequence)) {
                                problem("message " + sequence + " is not the test feed's");
                            }
                            expected[0] = sequence + 1;
                        }

                        @Override
                        public void onGap(final long gapFrom, final long accepted) {
                            problem("gap: messages " + gapFrom + " to " + (accepted - 1) + " will not come");
                            expected[0] = accepted;
                        }

                        @Override
                        public void onLoginAccepted(final String session, final long sequence) {
                            out.println("soup connect: logged in to session " + session + " at " + sequence);
                            if (expected[0] == 0) {
                                expected[0] = sequence;
                            }
                        }

                        @Override
                        public void onConnectionLost(final String reason) {
                            out.println("soup connect: connection lost (" + reason + "); reconnecting");
                        }

                        @Override
                        public void onStopped(final String reason) {
                            out.println("soup connect: stopped: " + reason);
                        }

                        private void problem(final String text) {
                            if (problems[0]++ == 0) {
                                firstProblem[0] = text;
                                out.println("soup connect: " + text);
                            }
                        }
                    });
                client.start();
                loop(reactor, seconds, () -> client.isStopped() || count > 0 && received[0] >= count,
                    () -> out.println("soup connect: received=" + received[0] + " next=" + client.nextSequence()
                        + " connects=" + client.connects() + " problems=" + problems[0]));
                out.println("soup connect: received=" + received[0] + " next=" + client.nextSequence() + " connects="
                    + client.connects() + " problems=" + problems[0] + (problems[0] > 0 ? " first: " + firstProblem[0] : ""));
                client.close();
            }
            return verify && problems[0] > 0 ? Cli.FAILURE : 0;
        }
    }
}
