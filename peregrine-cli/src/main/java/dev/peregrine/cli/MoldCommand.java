package dev.peregrine.cli;

import dev.peregrine.examples.mold.MoldListenerApp;
import dev.peregrine.examples.mold.MoldPublisherApp;
import dev.peregrine.mold.MoldUDP64Layout;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code ./peregrine mold publish|listen}: watch a MoldUDP64 feed lose packets and recover them.
 */
@Command(name = "mold", mixinStandardHelpOptions = true,
    description = {"MoldUDP64 feed and listener: run 'mold publish --loss 0.1' in one terminal and 'mold listen' in another.",
        "Multicast on loopback needs the MULTICAST flag on lo (ip link set lo multicast on); or use --group 127.0.0.1."},
    subcommands = {MoldCommand.Publish.class, MoldCommand.Listen.class})
public final class MoldCommand implements Callable<Integer> {
    /** The largest message that fits one packet with its 2-byte length. */
    static final int MAX_MESSAGE = MoldUDP64Layout.DEFAULT_MAX_PAYLOAD - 2;

    @Spec
    CommandSpec spec;

    /** Creates the command (picocli). */
    public MoldCommand() {
    }

    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required: publish or listen");
    }

    /**
     * The interface to use for a group, checked: up, and able to multicast when the group is a multicast one.
     *
     * @return the interface, or null when the group is unicast (none is needed)
     */
    static NetworkInterface multicastInterface(final CommandSpec spec, final InetAddress group, final String name) {
        if (group == null || !group.isMulticastAddress()) {
            return null;
        }
        try {
            final NetworkInterface nif = NetworkInterface.getByName(name);
            if (nif == null) {
                throw Cli.invalid(spec.commandLine(), "--interface", "'" + name + "' is not a network interface here");
            }
            if (!nif.isUp()) {
                throw Cli.invalid(spec.commandLine(), "--interface", name + " is down; turn it on with: ip link set " + name
                    + " up");
            }
            if (!nif.supportsMulticast()) {
                throw Cli.invalid(spec.commandLine(), "--interface", name + " has no MULTICAST flag, needed for --group "
                    + group.getHostAddress() + "; turn it on with: ip link set " + name + " multicast on"
                    + " (or use a unicast --group, e.g. 127.0.0.1)");
            }
            return nif;
        } catch (final SocketException ex) {
            throw Cli.invalid(spec.commandLine(), "--interface", name + " cannot be read: " + ex.getMessage());
        }
    }

    static int requestPort(final CommandSpec spec, final int port, final int requestPort) {
        final int effective = requestPort == 0 ? port + 1 : requestPort;
        if (effective > 65535) {
            throw Cli.invalid(spec.commandLine(), "--request-port", "0 means --port + 1 = " + effective
                + ", which is not a port; give --request-port 1 to 65535");
        }
        if (effective == port) {
            throw Cli.invalid(spec.commandLine(), "--request-port", effective + " is the feed's --port; the re-request"
                + " server needs a port of its own (0 means --port + 1)");
        }
        return effective;
    }

    static InetAddress address(final String host) {
        try {
            return InetAddress.getByName(host);
        } catch (final UnknownHostException ex) {
            throw new IllegalStateException("host=" + host + " resolved when parsed, not now: " + ex.getMessage(), ex);
        }
    }

    /** {@code mold publish}. */
    @Command(name = "publish", mixinStandardHelpOptions = true, description = "Publish numbered messages at a steady rate, dropping some on purpose.")
    public static final class Publish implements Callable<Integer>, Validated {
        @Spec
        CommandSpec spec;
        @Option(names = "--group", converter = Converters.Host.class,
            description = "multicast group or unicast address (default ${DEFAULT-VALUE})", defaultValue = "239.1.1.1")
        String group;
        @Range(min = 1, max = 65535)
        @Option(names = "--port", description = "feed port (default ${DEFAULT-VALUE})", defaultValue = "5000")
        int port;
        @Option(names = "--interface", converter = Converters.InterfaceName.class,
            description = "multicast interface (default ${DEFAULT-VALUE})", defaultValue = "lo")
        String interfaceName;
        @Range(min = 0, max = 65535, note = "0 for the feed port + 1")
        @Option(names = "--request-port", description = "re-request server port (default: feed port + 1)", defaultValue = "0")
        int requestPort;
        @Option(names = "--session", converter = Converters.SessionName.class,
            description = "session name, up to 10 characters (default ${DEFAULT-VALUE})", defaultValue = "PEREGRINE")
        String session;
        @Range(min = 1)
        @Option(names = "--rate", description = "messages per second (default ${DEFAULT-VALUE})", defaultValue = "1000")
        int rate;
        @Range(min = 0, max = 1, maxExclusive = true)
        @Option(names = "--loss", description = "share of data packets dropped before sending, 0 to 1 (default ${DEFAULT-VALUE})", defaultValue = "0")
        double loss;
        @Range(min = 8, max = MAX_MESSAGE, note = "the sequence number, 8 bytes, comes first")
        @Option(names = "--size", description = "message size in bytes, 8 to 1450 (default ${DEFAULT-VALUE})", defaultValue = "32")
        int size;
        @Range(note = "0 for no end")
        @Option(names = "--count", description = "messages to publish, then end the session; 0 for no end (default ${DEFAULT-VALUE})", defaultValue = "0")
        long count;
        @Option(names = "--linger", converter = Linger.class,
            description = {"with --count: how long the re-request server goes on answering after End of Session, which"
                + " is repeated every 100 ms meanwhile (so that a listener that asks again only when a packet arrives"
                + " keeps recovering); e.g. 30s, 500ms, 2m, 0s (default ${DEFAULT-VALUE})"}, defaultValue = "30s")
        long lingerNs;
        @Option(names = "--store", converter = Converters.StoreFile.class,
            description = "keep the message store in this file, so a restart goes on (a new file, or a store; any"
                + " other file is refused, not overwritten)")
        Path store;

        /** Creates the command (picocli). */
        public Publish() {
        }

        @Override
        public void validate() {
            requestPort(spec, port, requestPort);
            multicastInterface(spec, address(group), interfaceName);
        }

        @Override
        public Integer call() {
            final InetAddress address = address(group);
            final int requests = requestPort(spec, port, requestPort);
            final MoldPublisherApp app = new MoldPublisherApp(address, port, multicastInterface(spec, address, interfaceName),
                requests, session, rate, loss, size, count, store, lingerNs);
            try {
                app.run(System.out);
            } catch (final UncheckedIOException ex) {
                if (ex.getCause() instanceof BindException) {
                    throw Cli.invalid(spec.commandLine(), "--request-port", requests + " cannot be used: "
                        + ex.getCause().getMessage() + "; expected a free UDP port (another publisher may be running)");
                }
                throw ex;
            }
            return 0;
        }
    }

    /** {@code mold listen}. */
    @Command(name = "listen", mixinStandardHelpOptions = true, description = "Follow a feed, recover its gaps, print state and counters.")
    public static final class Listen implements Callable<Integer>, Validated {
        @Spec
        CommandSpec spec;
        @Option(names = "--group", converter = Converters.GroupOrNone.class,
            description = "multicast group to join, or 'none' for unicast (default ${DEFAULT-VALUE})", defaultValue = "239.1.1.1")
        String group;
        @Range(min = 1, max = 65535)
        @Option(names = "--port", description = "feed port (default ${DEFAULT-VALUE})", defaultValue = "5000")
        int port;
        @Option(names = "--interface", converter = Converters.InterfaceName.class,
            description = "interface to join on (default ${DEFAULT-VALUE})", defaultValue = "lo")
        String interfaceName;
        @Option(names = "--request-host", converter = Converters.Host.class,
            description = "re-request server host (default ${DEFAULT-VALUE})", defaultValue = "127.0.0.1")
        String requestHost;
        @Range(min = 0, max = 65535, note = "0 for the feed port + 1")
        @Option(names = "--request-port", description = "re-request server port (default: feed port + 1)", defaultValue = "0")
        int requestPort;
        @Option(names = "--answers-only-from-request-server", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = {"take answers on the request socket from --request-host and --request-port only; other"
            + " senders' datagrams are dropped and counted (strangers=). On by default; --no-answers-only-from-request-server"
            + " takes any sender's, for a server that answers from another address than the one asked."})
        boolean answersOnlyFromRequestServer;
        @Range(note = "0: next message, 1: whole session")
        @Option(names = "--start", description = "0: next message, 1: whole session, n: from n (default ${DEFAULT-VALUE})", defaultValue = "0")
        long start;
        @Range(max = Range.DAY, note = "0 for never")
        @Option(names = "--seconds", description = "stop after this long, 0 for never (default ${DEFAULT-VALUE})", defaultValue = "0")
        int seconds;
        @Option(names = "--fanout", converter = FanoutCommand.LogName.class,
            description = "republish every recovered, in-order message into this broadcast log, for local readers"
                + " ('fanout tail NAME'); made if missing, else written on from where it stopped")
        String fanout;
        @Option(names = "--fanout-dir", description = "directory of broadcast logs (default: broadcast in the counters"
            + " directory)")
        Path fanoutDirectory;
        @Range(min = 2, max = 1 << 24, note = "a power of two")
        @Option(names = "--fanout-capacity", paramLabel = "RECORDS", defaultValue = "" + FanoutSink.DEFAULT_CAPACITY,
            description = "records the broadcast log holds, a power of two; used when the log is made, an existing log"
                + " keeps its own (default ${DEFAULT-VALUE})")
        int fanoutCapacity;
        @Range(min = FanoutSink.HEADER + 1, max = 1 << 20, note = "8 bytes of sequence, then the message")
        @Option(names = "--fanout-max-record", paramLabel = "BYTES", defaultValue = "" + FanoutSink.DEFAULT_MAX_RECORD,
            description = "longest record of the broadcast log: the 8-byte sequence and the message (a longer message"
                + " is cut to fit); used when the log is made, an existing log keeps its own (default ${DEFAULT-VALUE})")
        int fanoutMaxRecord;

        /** Creates the command (picocli). */
        public Listen() {
        }

        private InetAddress joined() {
            final InetAddress address = "none".equals(group) ? null : address(group);
            return address != null && address.isMulticastAddress() ? address : null;
        }

        @Override
        public void validate() {
            requestPort(spec, port, requestPort);
            multicastInterface(spec, joined(), interfaceName);
            if (Integer.bitCount(fanoutCapacity) != 1) {
                throw Cli.invalid(spec.commandLine(), "--fanout-capacity", fanoutCapacity + " records is not a power of"
                    + " two (the ring is indexed by a mask); e.g. " + Integer.highestOneBit(fanoutCapacity) + " or "
                    + Integer.highestOneBit(fanoutCapacity) * 2);
            }
            if (answersOnlyFromRequestServer && address(requestHost).isAnyLocalAddress()) {
                throw Cli.invalid(spec.commandLine(), "--request-host", requestHost + " is the wildcard address, which no"
                    + " answer comes from; answers are taken from the request server only, so give its own address (or"
                    + " --no-answers-only-from-request-server)");
            }
        }

        @Override
        public Integer call() {
            if (fanout == null) {
                return app(null).run(System.out) == 0 ? 0 : 1;
            }
            try (FanoutSink sink = FanoutCommand.openSink(spec, fanoutDirectory, fanout, fanoutCapacity,
                fanoutMaxRecord)) {
                System.out.println("fan-out into broadcast log " + sink.path());
                final int exit = app(sink).run(System.out) == 0 ? 0 : 1;
                if (sink.tooLong() > 0) {
                    System.out.println("fan-out: " + sink.tooLong() + " messages longer than the log's "
                        + sink.maxMessage() + " bytes were not written (--fanout-max-record)");
                }
                return exit;
            }
        }

        /** The listener these options describe. */
        MoldListenerApp app() {
            return app(null);
        }

        private MoldListenerApp app(final MoldListenerApp.MessageSink sink) {
            final InetAddress joined = joined();
            return new MoldListenerApp(joined, port, multicastInterface(spec, joined, interfaceName),
                new InetSocketAddress(address(requestHost), requestPort(spec, port, requestPort)), start, seconds,
                new RecoveryPerLine(), answersOnlyFromRequestServer, sink);
        }
    }

    /** {@code --linger}: a whole number with a unit, {@code ms}, {@code s} or {@code m}, up to an hour; in nanoseconds. */
    public static final class Linger implements CommandLine.ITypeConverter<Long> {
        private static final long MAX_NS = 3_600_000_000_000L;

        /** Creates the converter (picocli). */
        public Linger() {
        }

        @Override
        public Long convert(final String value) {
            final String text = value.trim();
            final int digits = countDigits(text);
            final String unit = text.substring(digits);
            final long perUnitNs = switch (unit) {
                case "ms" -> 1_000_000L;
                case "s" -> 1_000_000_000L;
                case "m" -> 60_000_000_000L;
                default -> -1;
            };
            if (digits == 0 || digits > 7 || perUnitNs < 0 || Long.parseLong(text.substring(0, digits)) * perUnitNs > MAX_NS) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not a linger; expected a whole number"
                    + " with ms, s or m, up to 60m (e.g. 30s, 500ms, 0s)");
            }
            return Long.parseLong(text.substring(0, digits)) * perUnitNs;
        }

        private static int countDigits(final String text) {
            int digits = 0;
            while (digits < text.length() && Character.isDigit(text.charAt(digits)) && text.charAt(digits) < 128) {
                digits++;
            }
            return digits;
        }
    }

    /**
     * Recovery latency on each {@code mold listen} counters line: p50 and p99 of the gaps filled since the
     * previous line (the histogram is reset after each line), from an HdrHistogram made up front.
     */
    static final class RecoveryPerLine implements MoldListenerApp.RecoveryLatencies {
        private static final long HIGHEST_NS = 3_600_000_000_000L;
        private final Histogram histogram = new Histogram(1, HIGHEST_NS, 3);

        @Override
        public void record(final long nanos) {
            histogram.recordValue(Math.max(1, Math.min(nanos, HIGHEST_NS)));
        }

        @Override
        public String line() {
            final long gaps = histogram.getTotalCount();
            final String text = gaps == 0 ? "recovery(1s) gaps=0"
                : String.format(Locale.ROOT, "recovery(1s) gaps=%d p50=%.1fus p99=%.1fus", gaps,
                    histogram.getValueAtPercentile(50) / 1e3, histogram.getValueAtPercentile(99) / 1e3);
            histogram.reset();
            return text;
        }
    }
}
