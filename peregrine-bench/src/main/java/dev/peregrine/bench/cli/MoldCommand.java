package dev.peregrine.bench.cli;

import dev.peregrine.examples.mold.MoldListenerApp;
import dev.peregrine.examples.mold.MoldPublisherApp;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code ./peregrine mold publish|listen}: watch a MoldUDP64 feed lose packets and recover them.
 */
@Command(name = "mold", mixinStandardHelpOptions = true,
    description = {"MoldUDP64 feed and listener: run 'mold publish --loss 0.1' in one terminal and 'mold listen' in another.",
        "Multicast on loopback needs the MULTICAST flag on lo (ip link set lo multicast on); or use --group 127.0.0.1."},
    subcommands = {MoldCommand.Publish.class, MoldCommand.Listen.class})
public final class MoldCommand implements Callable<Integer> {
    /** Creates the command (picocli). */
    public MoldCommand() {
    }

    @Override
    public Integer call() {
        System.out.println("usage: peregrine mold publish|listen [options]  (--help for the options)");
        return 2;
    }

    static NetworkInterface networkInterface(final String name) throws SocketException {
        final NetworkInterface nif = NetworkInterface.getByName(name);
        if (nif == null) {
            throw new IllegalArgumentException("interface=" + name + " does not exist");
        }
        return nif;
    }

    /** {@code mold publish}. */
    @Command(name = "publish", mixinStandardHelpOptions = true, description = "Publish numbered messages at a steady rate, dropping some on purpose.")
    public static final class Publish implements Callable<Integer> {
        @Option(names = "--group", description = "multicast group or unicast address (default ${DEFAULT-VALUE})", defaultValue = "239.1.1.1")
        String group;
        @Option(names = "--port", description = "feed port (default ${DEFAULT-VALUE})", defaultValue = "5000")
        int port;
        @Option(names = "--interface", description = "multicast interface (default ${DEFAULT-VALUE})", defaultValue = "lo")
        String interfaceName;
        @Option(names = "--request-port", description = "re-request server port (default: feed port + 1)", defaultValue = "0")
        int requestPort;
        @Option(names = "--session", description = "session name, up to 10 characters (default ${DEFAULT-VALUE})", defaultValue = "PEREGRINE")
        String session;
        @Option(names = "--rate", description = "messages per second (default ${DEFAULT-VALUE})", defaultValue = "1000")
        int rate;
        @Option(names = "--loss", description = "share of data packets dropped before sending, 0 to 1 (default ${DEFAULT-VALUE})", defaultValue = "0")
        double loss;
        @Option(names = "--size", description = "message size in bytes, 8 to 1450 (default ${DEFAULT-VALUE})", defaultValue = "32")
        int size;
        @Option(names = "--count", description = "messages to publish, then end the session; 0 for no end (default ${DEFAULT-VALUE})", defaultValue = "0")
        long count;
        @Option(names = "--store", description = "keep the message store in this file, so a restart goes on")
        Path store;

        /** Creates the command (picocli). */
        public Publish() {
        }

        @Override
        public Integer call() throws UnknownHostException, SocketException {
            final InetAddress address = InetAddress.getByName(group);
            new MoldPublisherApp(address, port, address.isMulticastAddress() ? networkInterface(interfaceName) : null,
                requestPort == 0 ? port + 1 : requestPort, session, rate, loss, size, count, store).run(System.out);
            return 0;
        }
    }

    /** {@code mold listen}. */
    @Command(name = "listen", mixinStandardHelpOptions = true, description = "Follow a feed, recover its gaps, print state and counters.")
    public static final class Listen implements Callable<Integer> {
        @Option(names = "--group", description = "multicast group to join, or 'none' for unicast (default ${DEFAULT-VALUE})", defaultValue = "239.1.1.1")
        String group;
        @Option(names = "--port", description = "feed port (default ${DEFAULT-VALUE})", defaultValue = "5000")
        int port;
        @Option(names = "--interface", description = "interface to join on (default ${DEFAULT-VALUE})", defaultValue = "lo")
        String interfaceName;
        @Option(names = "--request-host", description = "re-request server host (default ${DEFAULT-VALUE})", defaultValue = "127.0.0.1")
        String requestHost;
        @Option(names = "--request-port", description = "re-request server port (default: feed port + 1)", defaultValue = "0")
        int requestPort;
        @Option(names = "--start", description = "0: next message, 1: whole session, n: from n (default ${DEFAULT-VALUE})", defaultValue = "0")
        long start;
        @Option(names = "--seconds", description = "stop after this long, 0 for never (default ${DEFAULT-VALUE})", defaultValue = "0")
        int seconds;

        /** Creates the command (picocli). */
        public Listen() {
        }

        @Override
        public Integer call() throws UnknownHostException, SocketException {
            final InetAddress address = "none".equals(group) ? null : InetAddress.getByName(group);
            final InetAddress joined = address != null && address.isMulticastAddress() ? address : null;
            final long problems = new MoldListenerApp(joined, port, joined == null ? null : networkInterface(interfaceName),
                new InetSocketAddress(InetAddress.getByName(requestHost), requestPort == 0 ? port + 1 : requestPort), start, seconds)
                .run(System.out);
            return problems == 0 ? 0 : 1;
        }
    }
}
