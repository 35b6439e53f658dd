package dev.peregrine.bench.transports;

import dev.peregrine.peers.BenchTransport;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * The transports on the class path, found with {@link ServiceLoader}: the benchmark never names one in code.
 */
public final class Transports {
    private static final String PEREGRINE_PACKAGE = "dev.peregrine.bench.transports";
    private static final List<String> PATH_ORDER = List.of("tcp", "udp", "shm");
    /** Short names accepted for Peregrine's own transports. */
    public static final Map<String, String> ALIASES = aliases();

    private Transports() {
    }

    /**
     * Every registered transport, Peregrine's first, then by path (tcp, udp, shm) and name.
     *
     * @return the transports
     */
    public static List<BenchTransport> all() {
        final List<BenchTransport> found = new ArrayList<>();
        final var iterator = ServiceLoader.load(BenchTransport.class).iterator();
        while (true) {
            try {
                if (!iterator.hasNext()) {
                    break;
                }
                found.add(iterator.next());
            } catch (final ServiceConfigurationError ex) {
                // one broken provider must not hide the others
                System.err.println("peregrine: a transport could not be loaded: " + ex.getMessage());
            }
        }
        found.sort(Comparator.comparingInt((BenchTransport t) -> pathRank(t.path()))
            .thenComparing(t -> isPeregrine(t) ? 0 : 1)
            .thenComparing(BenchTransport::name));
        return found;
    }

    private static Map<String, String> aliases() {
        final Map<String, String> aliases = new LinkedHashMap<>();
        for (final String path : List.of("tcp", "udp", "shm", "mold")) {
            aliases.put(path, "peregrine-" + path);
        }
        return Collections.unmodifiableMap(aliases);
    }

    /**
     * The full name of a transport given by a short name ({@code tcp} is {@code peregrine-tcp}).
     *
     * @param name a name or a short name
     * @return the full name, or {@code name} itself if it is not a short name
     */
    public static String canonicalName(final String name) {
        return ALIASES.getOrDefault(name, name);
    }

    /**
     * Finds a transport by name.
     *
     * @param name the name, e.g. {@code peregrine-tcp}, or a short name, e.g. {@code tcp}; with
     *     {@link SeparatedBench#SUFFIX} its separated-stack variant, e.g. {@code peregrine-tcp[separated]}; with
     *     {@link LoggedBench#SUFFIX} its logging responder, {@code peregrine-tcp[logged]}; a name with
     *     {@link PeregrineWorkersBench#SUFFIX}, e.g. {@code peregrine-tcp+workers=2}, is that transport with workers
     * @return the transport
     * @throws IllegalArgumentException naming the known transports if there is none by that name
     */
    public static BenchTransport byName(final String name) {
        if (name.endsWith(SeparatedBench.SLEEP_SUFFIX)) {
            return SeparatedBench.sleeping(byName(name.substring(0, name.length() - SeparatedBench.SLEEP_SUFFIX.length())));
        }
        if (name.endsWith(SeparatedBench.SUFFIX)) {
            return SeparatedBench.of(byName(name.substring(0, name.length() - SeparatedBench.SUFFIX.length())));
        }
        if (name.endsWith(LoggedBench.SUFFIX)) {
            return LoggedBench.of(byName(name.substring(0, name.length() - LoggedBench.SUFFIX.length())));
        }
        final int workers = name.indexOf(PeregrineWorkersBench.SUFFIX);
        if (workers > 0) { // peregrine-tcp+workers=2: the name a responder JVM is started with
            final String count = name.substring(workers + PeregrineWorkersBench.SUFFIX.length());
            if (!count.matches("[0-9]{1,4}")) {
                throw new IllegalArgumentException("transport=" + name + " names no count of workers");
            }
            return PeregrineWorkersBench.of(byName(name.substring(0, workers)), Integer.parseInt(count));
        }
        final List<BenchTransport> all = all();
        for (final BenchTransport transport : all) {
            if (transport.name().equals(canonicalName(name))) {
                return transport;
            }
        }
        throw new IllegalArgumentException("transport=" + name + " is not known; known: "
            + String.join(", ", all.stream().map(BenchTransport::name).toList()));
    }

    /**
     * Whether a transport is Peregrine's own rather than a peer it is compared with.
     *
     * @param transport the transport
     * @return true for the transports in {@code dev.peregrine.bench.transports}
     */
    public static boolean isPeregrine(final BenchTransport transport) {
        return transport instanceof LossyLoadTransport lossy ? isPeregrine(lossy.real())
            : transport.getClass().getPackageName().startsWith(PEREGRINE_PACKAGE);
    }

    /**
     * The display order of a path.
     *
     * @param path {@code tcp}, {@code udp}, {@code shm} or anything else
     * @return its rank
     */
    public static int pathRank(final String path) {
        final int index = PATH_ORDER.indexOf(path);
        return index < 0 ? PATH_ORDER.size() : index;
    }
}
