package dev.peregrine.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;

/** The IPv6 loopback address, for the tests of IPv6 paths, and whether this machine has it. */
public final class Ipv6Loopback {
    /** {@code ::1}. */
    public static final InetAddress ADDRESS = parse();

    private Ipv6Loopback() {
    }

    /**
     * Whether a UDP socket can be bound to {@code ::1} here (a machine or container without IPv6 cannot).
     *
     * @return true if it can
     */
    public static boolean usable() {
        try (DatagramChannel probe = DatagramChannel.open()) {
            probe.bind(new InetSocketAddress(ADDRESS, 0));
            return true;
        } catch (final IOException | UnsupportedOperationException ex) {
            return false;
        }
    }

    private static InetAddress parse() {
        try {
            return InetAddress.getByName("::1");
        } catch (final IOException ex) {
            throw new IllegalStateException("::1 is a literal", ex);
        }
    }
}
