package dev.peregrine.cli;

import dev.peregrine.bench.run.Batch;
import dev.peregrine.bench.transports.Transports;
import dev.peregrine.mold.MoldUDP64MessageStore;
import dev.peregrine.peers.BenchTransport;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Converters that check a value's form when the command line is parsed, before anything runs; picocli
 * reports a refused value as {@code Invalid value for option '--x': <message>}, so each message names the
 * value given and what is accepted.
 */
public final class Converters {
    private Converters() {
    }

    /** A transport name or one of its short aliases ({@code tcp}, {@code udp}, {@code shm}, {@code mold}), made canonical. */
    public static final class TransportName implements ITypeConverter<String> {
        /** Creates the converter (picocli). */
        public TransportName() {
        }

        @Override
        public String convert(final String value) {
            final String name = Transports.canonicalName(value.trim());
            final List<String> known = new ArrayList<>();
            for (final BenchTransport transport : Transports.all()) {
                known.add(transport.name());
            }
            if (known.contains(name)) {
                return name;
            }
            final List<String> candidates = new ArrayList<>(known);
            candidates.addAll(Transports.ALIASES.keySet());
            final String closest = Cli.closest(value.trim(), candidates);
            final StringBuilder aliases = new StringBuilder();
            for (final Map.Entry<String, String> alias : Transports.ALIASES.entrySet()) {
                aliases.append(aliases.isEmpty() ? "" : ", ").append(alias.getKey()).append('=').append(alias.getValue());
            }
            throw new TypeConversionException("'" + value + "' is not a transport"
                + (closest == null ? "" : "; did you mean " + Transports.canonicalName(closest) + "?")
                + "; known: " + String.join(", ", known) + " (short names: " + aliases + ")");
        }
    }

    /** A throughput batch: a count of messages ({@code 2048}) or a payload size ({@code 64KiB}). */
    public static final class BatchValue implements ITypeConverter<Batch> {
        /** Creates the converter (picocli). */
        public BatchValue() {
        }

        @Override
        public Batch convert(final String value) {
            try {
                return Batch.parse(value);
            } catch (final IllegalArgumentException ex) {
                throw new TypeConversionException(ex.getMessage());
            }
        }
    }

    /** A host name or address that resolves. */
    public static final class Host implements ITypeConverter<String> {
        /** Creates the converter (picocli). */
        public Host() {
        }

        @Override
        public String convert(final String value) {
            resolve(value, "a host name or an IP address");
            return value;
        }
    }

    /** An address of this machine to listen on ({@code 0.0.0.0} for all of them). */
    public static final class LocalAddress implements ITypeConverter<String> {
        /** Creates the converter (picocli). */
        public LocalAddress() {
        }

        @Override
        public String convert(final String value) {
            final InetAddress address = resolve(value, "an address of this machine, e.g. 127.0.0.1 or 0.0.0.0");
            try {
                if (address.isAnyLocalAddress() || address.isLoopbackAddress()
                    || NetworkInterface.getByInetAddress(address) != null) {
                    return value;
                }
            } catch (final SocketException ex) {
                throw new TypeConversionException("'" + value + "': cannot list this machine's addresses: " + ex.getMessage());
            }
            throw new TypeConversionException("'" + value + "' (" + address.getHostAddress() + ") is not an address of this"
                + " machine; expected one of " + localAddresses() + " or 0.0.0.0 for all");
        }
    }

    /** A multicast group or unicast address, or {@code none}. */
    public static final class GroupOrNone implements ITypeConverter<String> {
        /** Creates the converter (picocli). */
        public GroupOrNone() {
        }

        @Override
        public String convert(final String value) {
            if (!"none".equals(value)) {
                resolve(value, "a multicast group (e.g. 239.1.1.1), a unicast address, or none");
            }
            return value;
        }
    }

    /** The name of a network interface of this machine. */
    public static final class InterfaceName implements ITypeConverter<String> {
        /** Creates the converter (picocli). */
        public InterfaceName() {
        }

        @Override
        public String convert(final String value) {
            final List<String> names = new ArrayList<>();
            try {
                if (!value.isEmpty() && NetworkInterface.getByName(value) != null) {
                    return value;
                }
                for (final NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                    names.add(nif.getName());
                }
            } catch (final SocketException ex) {
                throw new TypeConversionException("'" + value + "': cannot list the interfaces: " + ex.getMessage());
            }
            throw new TypeConversionException("'" + value + "' is not a network interface here; expected one of "
                + String.join(", ", names));
        }
    }

    /**
     * A converter of a file the command writes: {@link Cli} checks, once every other check has passed, that no two
     * options name one file and that the file can be made (by making it and removing it again).
     */
    public interface WritesFile {
    }

    /** A file that can be written: its folder exists and is writable, and it is not a folder itself. */
    public static final class WritableFile implements ITypeConverter<Path>, WritesFile {
        /** Creates the converter (picocli). */
        public WritableFile() {
        }

        @Override
        public Path convert(final String value) {
            return writable(value);
        }
    }

    /**
     * A file for a MoldUDP64 message store, as {@link WritableFile}: missing, empty, or a store already (of any
     * session); a file that holds anything else is refused, as the store would overwrite it.
     */
    public static final class StoreFile implements ITypeConverter<Path>, WritesFile {
        /** Creates the converter (picocli). */
        public StoreFile() {
        }

        @Override
        public Path convert(final String value) {
            final Path file = writable(value);
            final String refusal = MoldUDP64MessageStore.refusalOf(file);
            if (refusal != null) {
                throw new TypeConversionException("'" + value + "' cannot hold the store: " + refusal
                    + "; expected a new file, or the store of an earlier mold publish --store");
            }
            return file;
        }
    }

    private static Path writable(final String value) {
        final Path file;
        try {
            file = Path.of(value);
        } catch (final InvalidPathException ex) {
            throw new TypeConversionException("'" + value + "' is not a file name: " + ex.getMessage());
        }
        if (value.isBlank()) {
            throw new TypeConversionException("'' is not a file name; expected a file in an existing folder");
        }
        final Path folder = file.toAbsolutePath().getParent();
        if (folder == null || !Files.isDirectory(folder)) {
            throw new TypeConversionException("'" + value + "' cannot be written: folder " + folder
                + " does not exist; expected a file in an existing folder");
        }
        if (Files.isDirectory(file)) {
            throw new TypeConversionException("'" + value + "' is a folder; expected a file name");
        }
        if (!Files.isWritable(folder) || Files.exists(file) && !Files.isWritable(file)) {
            throw new TypeConversionException("'" + value + "' cannot be written (no permission); expected a writable file");
        }
        return file;
    }

    /** A MoldUDP64 session name: 1 to 10 printable ASCII characters. */
    public static final class SessionName implements ITypeConverter<String> {
        /** Creates the converter (picocli). */
        public SessionName() {
        }

        @Override
        public String convert(final String value) {
            if (value.isEmpty() || value.length() > 10 || !value.chars().allMatch(c -> c > ' ' && c < 127)) {
                throw new TypeConversionException("'" + value + "' is not a session name; expected 1 to 10 printable"
                    + " ASCII characters without spaces");
            }
            return value;
        }
    }

    private static InetAddress resolve(final String value, final String expected) {
        if (value.isBlank()) {
            throw new TypeConversionException("'' is empty; expected " + expected);
        }
        try {
            return InetAddress.getByName(value);
        } catch (final UnknownHostException ex) {
            throw new TypeConversionException("'" + value + "' is not a known host; expected " + expected);
        }
    }

    private static String localAddresses() {
        final List<String> addresses = new ArrayList<>();
        try {
            for (final NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (final InetAddress address : Collections.list(nif.getInetAddresses())) {
                    addresses.add(address.getHostAddress().replaceFirst("%.*", ""));
                }
            }
        } catch (final SocketException ex) {
            return "(cannot list them: " + ex.getMessage() + ")";
        }
        return String.join(", ", addresses);
    }
}
