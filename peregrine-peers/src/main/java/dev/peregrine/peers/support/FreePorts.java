package dev.peregrine.peers.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Blocks of consecutive ports, free for both TCP and UDP, for a run's responders to listen on.
 *
 * <p>The blocks are taken outside the range the kernel hands out to sockets bound to port 0 ({@link
 * #ephemeralRange()}) where it can. A run's own clients, and anything else on the host, bind such sockets between
 * the probe here and a responder's bind; one of them landing in the run's block failed the run with "Address
 * already in use".
 */
public final class FreePorts {
    private static final int LOWEST_PORT = 20_000;
    private static final int HIGHEST_PORT = 65_535;
    private static final int ATTEMPTS = 200;
    private static final Path LINUX_EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    /** IANA's dynamic range, which systems other than Linux use for ports bound to 0. */
    private static final int[] IANA_EPHEMERAL_RANGE = {49_152, 65_535};

    private FreePorts() {
    }

    /**
     * A port such that {@code count} consecutive ports from it are free for both TCP and UDP on {@code host}, outside
     * the ephemeral range where it leaves room for them.
     *
     * @param host the address
     * @param count how many consecutive ports
     * @return the first port
     */
    public static int block(final String host, final int count) {
        final int[] range = portRange(ephemeralRange(), count);
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            final int first = ThreadLocalRandom.current().nextInt(range[0], range[1] + 1);
            boolean free = true;
            for (int port = first; port < first + count && free; port++) {
                free = isFree(host, port);
            }
            if (free) {
                return first;
            }
        }
        throw new IllegalStateException("no " + count + " consecutive free ports on host=" + host);
    }

    /**
     * The lowest and highest first port of a block of {@code count} ports: the widest stretch of [20000, 65535] that
     * lies outside {@code ephemeral}, or the whole of it if no stretch outside holds the block.
     *
     * @param ephemeral the lowest and highest ephemeral port
     * @param count ports in the block
     * @return {lowest first port, highest first port}
     */
    public static int[] portRange(final int[] ephemeral, final int count) {
        final int belowLow = LOWEST_PORT;
        final int belowHigh = Math.min(ephemeral[0], HIGHEST_PORT + 1) - count;
        final int aboveLow = Math.max(ephemeral[1] + 1, LOWEST_PORT);
        final int aboveHigh = HIGHEST_PORT + 1 - count;
        final int below = belowHigh - belowLow;
        final int above = aboveHigh - aboveLow;
        if (below < 0 && above < 0) {
            return new int[] {LOWEST_PORT, HIGHEST_PORT + 1 - count};
        }
        return below >= above ? new int[] {belowLow, belowHigh} : new int[] {aboveLow, aboveHigh};
    }

    /**
     * The range of ports the kernel gives sockets bound to port 0: Linux's {@code ip_local_port_range}, or IANA's
     * 49152–65535 where that cannot be read.
     *
     * @return {lowest, highest}
     */
    public static int[] ephemeralRange() {
        // one read(2) of the whole line: a sysctl integer file answers any read at an offset past 0 with end of
        // file, so Files.readString (which reads one byte first, to look for the end) would see only "3"
        try (BufferedReader reader = Files.newBufferedReader(LINUX_EPHEMERAL_RANGE)) {
            final String line = reader.readLine();
            final String[] fields = line == null ? new String[0] : line.trim().split("\\s+");
            if (fields.length == 2) {
                final int low = Integer.parseInt(fields[0]);
                final int high = Integer.parseInt(fields[1]);
                if (0 < low && low <= high && high <= HIGHEST_PORT) {
                    return new int[] {low, high};
                }
            }
        } catch (final IOException | NumberFormatException ex) {
            // not Linux, or a file we do not understand: IANA's range below
        }
        return IANA_EPHEMERAL_RANGE.clone();
    }

    private static boolean isFree(final String host, final int port) {
        try (ServerSocket tcp = new ServerSocket();
             DatagramSocket udp = new DatagramSocket(null)) {
            tcp.setReuseAddress(true);
            final InetAddress address = InetAddress.getByName(host);
            tcp.bind(new InetSocketAddress(address, port));
            udp.bind(new InetSocketAddress(address, port));
            return true;
        } catch (final IOException ex) {
            return false;
        }
    }
}
