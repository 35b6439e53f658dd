package dev.peregrine.cli;

import dev.peregrine.broadcast.BroadcastHandler;
import dev.peregrine.broadcast.BroadcastLogOptions;
import dev.peregrine.broadcast.BroadcastReader;
import dev.peregrine.broadcast.BroadcastStart;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;

/**
 * {@code ./peregrine fanout tail NAME}: one local reader of a broadcast log that {@code mold listen --fanout NAME}
 * writes; prints its rate, position and losses once a second.
 */
@Command(name = "fanout", mixinStandardHelpOptions = true,
    description = "Local readers of a feed republished by 'mold listen --fanout NAME' into a broadcast log.",
    subcommands = {FanoutCommand.Tail.class})
public final class FanoutCommand implements Callable<Integer> {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}");

    @Spec
    CommandSpec spec;

    /** Creates the command (picocli). */
    public FanoutCommand() {
    }

    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required: tail");
    }

    static Path directory(final Path given) {
        return given != null ? given : BroadcastLogOptions.defaultDirectory();
    }

    static FanoutSink openSink(final CommandSpec spec, final Path given, final String name, final int capacity,
                               final int maxRecord) {
        try {
            return FanoutSink.open(directory(given), name, capacity, maxRecord);
        } catch (final IllegalStateException | IllegalArgumentException ex) {
            throw Cli.invalid(spec.commandLine(), "--fanout", name + " cannot be written: " + ex.getMessage());
        }
    }

    /** A log name: 1 to 64 of {@code [A-Za-z0-9._-]}, not starting with a dot. */
    public static final class LogName implements CommandLine.ITypeConverter<String> {
        /** Creates the converter (picocli). */
        public LogName() {
        }

        @Override
        public String convert(final String value) {
            if (!NAME.matcher(value).matches()) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not a log name; expected 1 to 64 of"
                    + " A-Z a-z 0-9 . _ -, not starting with '.'");
            }
            return value;
        }
    }

    /** {@code fanout tail}. */
    @Command(name = "tail", mixinStandardHelpOptions = true,
        description = "Attach one reader to a broadcast log; print rate, position and losses once a second.")
    public static final class Tail implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Parameters(index = "0", arity = "0..1", paramLabel = "NAME", converter = LogName.class,
            description = "the log's name (required)")
        String name;
        @Range(note = "0 for no end")
        @Option(names = "--count", description = "end after this many messages, 0 for no end (default ${DEFAULT-VALUE})",
            defaultValue = "0")
        long count;
        @Option(names = "--verify", description = "exit 1 unless every sequence arrived once, in order, with no loss")
        boolean verify;
        @Option(names = "--from", description = "live or oldest (default ${DEFAULT-VALUE})", defaultValue = "oldest",
            converter = StartConverter.class)
        BroadcastStart from;
        @Range(max = Range.DAY, note = "0 for never")
        @Option(names = "--seconds", description = "stop after this long, 0 for never (default ${DEFAULT-VALUE})",
            defaultValue = "0")
        int seconds;
        @Option(names = "--dir", description = "directory of broadcast logs (default: broadcast in the counters directory)")
        Path directory;

        /** Creates the command (picocli). */
        public Tail() {
        }

        @Override
        public Integer call() {
            if (name == null) {
                throw new CommandLine.ParameterException(spec.commandLine(), "Missing required parameter: 'NAME', the"
                    + " broadcast log to read (as given to 'mold listen --fanout NAME')");
            }
            final Path dir = directory(directory);
            if (!Files.exists(dir.resolve(name + ".bcast"))) {
                throw new CommandLine.ParameterException(spec.commandLine(), "Invalid value for parameter 'NAME': no"
                    + " broadcast log " + name + " in " + dir + " (start 'mold listen --fanout " + name + "' first)");
            }
            final BroadcastReader reader;
            try {
                reader = BroadcastReader.attach(dir, name, "tail-" + ProcessHandle.current().pid(), from);
            } catch (final IllegalStateException | IllegalArgumentException ex) {
                throw new CommandLine.ParameterException(spec.commandLine(), "Invalid value for parameter 'NAME': "
                    + name + " cannot be read: " + ex.getMessage());
            }
            try (reader) {
                System.out.println("attached to " + dir.resolve(name + ".bcast") + " as reader " + reader.name()
                    + " (entry " + reader.entry() + ", " + reader.policy() + ", from " + from.name().toLowerCase(
                    java.util.Locale.ROOT) + ")");
                System.out.flush();
                return run(reader);
            }
        }

        private int run(final BroadcastReader reader) {
            final Verifier verifier = new Verifier();
            final long endNs = seconds == 0 ? Long.MAX_VALUE : System.nanoTime() + seconds * 1_000_000_000L;
            long nextReportNs = System.nanoTime() + 1_000_000_000L;
            long lastDelivered = 0;
            while ((count == 0 || verifier.messages < count) && !reader.isDone() && System.nanoTime() < endNs
                && !Thread.currentThread().isInterrupted()) {
                final int read = reader.poll(verifier, 256);
                final long nowNs = System.nanoTime();
                if (nowNs >= nextReportNs) {
                    nextReportNs += 1_000_000_000L;
                    System.out.println(line("tail", reader, verifier, verifier.messages - lastDelivered));
                    lastDelivered = verifier.messages;
                }
                if (read == 0) {
                    Thread.onSpinWait();
                    Thread.yield();
                }
            }
            System.out.println(line("end", reader, verifier, verifier.messages - lastDelivered));
            if (reader.isDone()) {
                System.out.println("reader stopped: " + reader.failure());
            }
            if (!verify) {
                return reader.isDone() ? 1 : 0;
            }
            final boolean complete = count == 0 || verifier.messages == count;
            final boolean good = complete && verifier.problem == null && reader.missed() == 0 && !reader.isDone();
            System.out.println(good ? "verify ok: " + verifier.messages + " messages, every sequence once, in order"
                : "verify FAILED: " + (verifier.problem != null ? verifier.problem : reader.missed() > 0
                    ? reader.missed() + " missed" : "got " + verifier.messages + " of " + count));
            return good ? 0 : 1;
        }

        private static String line(final String what, final BroadcastReader reader, final Verifier verifier,
            final long perSecond) {
            return what + " messages=" + verifier.messages + " (+" + perSecond + "/s) position=" + reader.position()
                + " lastSequence=" + verifier.lastSequence + " missed=" + reader.missed() + " laps=" + reader.laps()
                + (reader.isWriterGone() ? " writer=gone" : "");
        }
    }

    /** Counts messages and checks that sequences follow each other. */
    private static final class Verifier implements BroadcastHandler {
        long messages;
        long lastSequence;
        String problem;

        @Override
        public void onRecord(final MemorySegment buffer, final long offset, final int length, final long position) {
            if (length < FanoutSink.HEADER) {
                problem = problem != null ? problem : "record at position " + position + " of " + length + " bytes";
                return;
            }
            final long sequence = buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
            if (messages > 0 && sequence != lastSequence + 1 && problem == null) {
                problem = "sequence " + sequence + " after " + lastSequence;
            }
            lastSequence = sequence;
            messages++;
        }

        @Override
        public void onLapped(final long missed, final long resumePosition) {
            if (problem == null) {
                problem = "lapped: " + missed + " missed, resumed at position " + resumePosition;
            }
        }
    }

    /** {@code --from}: live or oldest. */
    public static final class StartConverter implements CommandLine.ITypeConverter<BroadcastStart> {
        /** Creates the converter (picocli). */
        public StartConverter() {
        }

        @Override
        public BroadcastStart convert(final String value) {
            return switch (value) {
                case "live" -> BroadcastStart.LIVE;
                case "oldest" -> BroadcastStart.OLDEST;
                default -> throw new CommandLine.TypeConversionException("'" + value + "' is not a start; expected live"
                    + " or oldest");
            };
        }
    }
}
