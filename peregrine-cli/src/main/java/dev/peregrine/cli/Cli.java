package dev.peregrine.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.reflect.Field;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How the command line answers: every user error is one line on stderr and exit code 2, before anything is
 * started; a failure while running is one line of reason and exit code 1 (the stack trace with
 * {@code --verbose}).
 *
 * <p>The checks are generic, from picocli's own model: converters check a value's form (a transport name, a
 * host, a writable file), then every numeric option is checked against its {@link Range} (0 and more when it
 * has none), then each {@link Validated} command or mixin checks how its options fit together, and last the files
 * the command will write are made and removed again ({@link Converters.WritesFile}).
 */
public final class Cli {
    /** Exit code of a user error (picocli's usage error). */
    public static final int USAGE_ERROR = 2;
    /** Exit code of a failure while running. */
    public static final int FAILURE = 1;
    /** The commands {@code ./peregrine} answers itself, before the CLI; a mistyped one is suggested too. */
    public static final List<String> LAUNCHER_COMMANDS = List.of("build", "test", "install", "jdk", "mvn");
    /** The option that shows stack traces. */
    public static final String VERBOSE = "--verbose";

    private Cli() {
    }

    /**
     * Makes a command line answer as described above.
     *
     * @param commandLine the command line, subcommands added
     * @return the same command line
     */
    public static CommandLine configure(final CommandLine commandLine) {
        return configure(commandLine, new CommandLine.RunLast());
    }

    /**
     * Makes a command line answer as described above, running the parsed command with {@code strategy}
     * once every check has passed (tests pass one that only records that it was reached).
     *
     * @param commandLine the command line, subcommands added
     * @param strategy what runs the command after the checks
     * @return the same command line
     */
    public static CommandLine configure(final CommandLine commandLine, final CommandLine.IExecutionStrategy strategy) {
        shareVersion(commandLine, commandLine.getCommandSpec().versionProvider());
        commandLine.setParameterExceptionHandler(Cli::onUserError);
        commandLine.setExecutionExceptionHandler(Cli::onFailure);
        commandLine.setExecutionStrategy(parseResult -> {
            check(parseResult);
            return strategy.execute(parseResult);
        });
        return commandLine;
    }

    /**
     * A user error about one option, for a check that needs more than the option's own value.
     *
     * @param commandLine the command
     * @param option the option's name, e.g. {@code --interface}
     * @param problem the value given, what is wrong with it and what is accepted
     * @return the exception to throw
     */
    public static ParameterException invalid(final CommandLine commandLine, final String option, final String problem) {
        return new ParameterException(commandLine, "Invalid value for option '" + option + "': " + problem);
    }

    /**
     * Whether an option was typed, not taken from its default.
     *
     * @param spec the command (the mixee, for an option of a mixin)
     * @param option the option's longest name
     * @return true if the command line has it
     */
    public static boolean given(final CommandSpec spec, final String option) {
        final ParseResult parsed = spec.commandLine().getParseResult();
        return parsed != null && parsed.hasMatchedOption(option);
    }

    /**
     * Refuses two options typed together that exclude each other, naming the second.
     *
     * @param spec the command
     * @param first one option's longest name
     * @param second the other's
     */
    public static void exclusive(final CommandSpec spec, final String first, final String second) {
        if (given(spec, first) && given(spec, second)) {
            throw invalid(spec.commandLine(), second, first + " and " + second + " exclude each other; give one");
        }
    }

    /**
     * An exception as one line: its message (or class) and its causes'.
     *
     * @param error the exception
     * @return the line
     */
    public static String oneLine(final Throwable error) {
        final StringBuilder text = new StringBuilder();
        Throwable at = error;
        for (int depth = 0; at != null && depth < 5; depth++) {
            final String message = at.getMessage();
            final String part = message == null || message.isBlank() ? at.getClass().getSimpleName()
                : at instanceof RuntimeException && !(at instanceof java.io.UncheckedIOException) ? message
                : at.getClass().getSimpleName() + ": " + message;
            if (text.indexOf(part) < 0) {
                text.append(text.isEmpty() ? "" : " (caused by ").append(part);
            }
            at = at.getCause() == at ? null : at.getCause();
        }
        final long open = text.chars().filter(c -> c == '(').count() - text.chars().filter(c -> c == ')').count();
        text.append(")".repeat((int)Math.max(0, open)));
        return text.toString().replace('\n', ' ').replace('\r', ' ');
    }

    /**
     * The known name closest to a mistyped one, if one is close.
     *
     * @param given what was typed
     * @param known the names
     * @return the closest name, or null if none is close
     */
    public static String closest(final String given, final Collection<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        final String typed = given.toLowerCase(Locale.ROOT);
        for (final String name : known) {
            final String candidate = name.toLowerCase(Locale.ROOT);
            int distance = distance(typed, candidate);
            if (!typed.isEmpty() && (candidate.startsWith(typed) || candidate.endsWith("-" + typed))) {
                distance = Math.min(distance, 1);
            }
            if (distance < bestDistance) {
                best = name;
                bestDistance = distance;
            }
        }
        return bestDistance <= Math.max(1, Math.min(3, typed.length() / 3)) ? best : null;
    }

    /** Edit distance with a swap of two neighbours counting as one edit (optimal string alignment). */
    private static int distance(final String a, final String b) {
        final int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                final int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(d[i - 1][j - 1] + cost, Math.min(d[i - 1][j], d[i][j - 1]) + 1);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }

    /** {@code --version} answers on every subcommand as on the root: picocli asks each command's own provider. */
    private static void shareVersion(final CommandLine commandLine, final CommandLine.IVersionProvider provider) {
        if (provider == null) {
            return;
        }
        for (final CommandLine sub : commandLine.getSubcommands().values()) {
            if (sub.getCommandSpec().versionProvider() == null && sub.getCommandSpec().version().length == 0) {
                sub.getCommandSpec().versionProvider(provider);
            }
            shareVersion(sub, provider);
        }
    }

    /** Checks every command of the parse, outermost first, unless help or the version was asked for. */
    private static void check(final ParseResult parseResult) {
        for (ParseResult at = parseResult; at != null; at = at.subcommand()) {
            if (at.isUsageHelpRequested() || at.isVersionHelpRequested()) {
                return;
            }
        }
        for (ParseResult at = parseResult; at != null; at = at.subcommand()) {
            if (!at.unmatched().isEmpty()) { // e.g. a word between "bench" and its subcommand
                throw new UnmatchedArgumentException(at.commandSpec().commandLine(), at.unmatched());
            }
            final CommandSpec spec = at.commandSpec();
            for (final OptionSpec option : spec.options()) {
                checkListSeparators(spec.commandLine(), option);
                checkRepeats(spec.commandLine(), option);
                checkRange(spec.commandLine(), option, "option '" + option.longestName() + "'");
            }
            for (final ArgSpec positional : spec.positionalParameters()) {
                checkRange(spec.commandLine(), positional, positional.paramLabel());
            }
            for (final CommandSpec mixin : spec.mixins().values()) {
                if (mixin.userObject() instanceof Validated validated) {
                    validated.validate();
                }
            }
            if (spec.userObject() instanceof Validated validated) {
                validated.validate();
            }
        }
        for (ParseResult at = parseResult; at != null; at = at.subcommand()) {
            checkFiles(at.commandSpec());
        }
    }

    /**
     * The files a command writes, checked last as the check makes them: no two options name one file (the last one
     * written would replace the others), and each can be made. A folder can look writable and still take no new file
     * ({@code /proc}; a read-only mount; any folder, to root), and the results of a long run were then lost at its end.
     */
    private static void checkFiles(final CommandSpec spec) {
        final Map<Path, OptionSpec> named = new HashMap<>();
        for (final OptionSpec option : spec.options()) {
            if (!(option.getValue() instanceof Path file) || !writesFile(option)) {
                continue;
            }
            final OptionSpec other = named.putIfAbsent(file.toAbsolutePath().normalize(), option);
            if (other != null) { // name the one typed, not a default (compare --json report.html)
                final boolean otherTyped = given(spec, other.longestName()) && !given(spec, option.longestName());
                throw invalid(spec.commandLine(), (otherTyped ? other : option).longestName(), "'" + file
                    + "' is also the " + (otherTyped ? option : other).longestName() + " file; give each its own file");
            }
            final String why = cannotMake(file);
            if (why != null) {
                throw invalid(spec.commandLine(), option.longestName(), "'" + file + "' cannot be written: " + why
                    + "; expected a file in a folder that takes new files");
            }
        }
    }

    private static boolean writesFile(final OptionSpec option) {
        for (final CommandLine.ITypeConverter<?> converter : option.converters()) {
            if (converter instanceof Converters.WritesFile) {
                return true;
            }
        }
        return false;
    }

    /** Why a file cannot be written, found by making it (and removing it) or opening it to append; null if it can. */
    private static String cannotMake(final Path file) {
        try {
            if (!Files.exists(file)) {
                Files.delete(Files.createFile(file));
            } else if (Files.isRegularFile(file)) { // not a device or a pipe, whose opening may block or mean more
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
                    channel.size();
                }
            }
            return null;
        } catch (final AccessDeniedException ex) {
            return "no permission";
        } catch (final FileSystemException ex) {
            return ex.getReason() != null ? ex.getReason() // e.g. "Read-only file system"
                : "folder " + file.toAbsolutePath().getParent() + " takes no new file";
        } catch (final IOException ex) {
            return ex.getMessage() != null ? ex.getMessage() : ex.getClass().getSimpleName();
        }
    }

    /**
     * A list option's values as typed: picocli drops the empty item after a trailing comma ("32," reads as 32) but
     * refuses ",32" and "32,,64"; a trailing comma is refused the same way, as it is as likely a forgotten value.
     */
    private static void checkListSeparators(final CommandLine commandLine, final OptionSpec option) {
        if (option.splitRegex().isEmpty()) {
            return;
        }
        for (final String typed : option.originalStringValues()) {
            if (typed.isBlank() || typed.strip().endsWith(",")) {
                throw invalid(commandLine, option.longestName(), "'" + typed + "' " + (typed.isBlank() ? "is empty"
                    : "ends with a comma") + "; give the values separated by single commas, e.g. 32,256");
            }
        }
    }

    /** A list names each item once, compared as converted (tcp and peregrine-tcp are one transport). */
    private static void checkRepeats(final CommandLine commandLine, final OptionSpec option) {
        if (option.splitRegex().isEmpty() || !(option.getValue() instanceof Collection<?> values)
            || option.userObject() instanceof Field field && field.isAnnotationPresent(MayRepeat.class)) {
            return;
        }
        final Set<Object> seen = new HashSet<>();
        for (final Object value : values) {
            if (!seen.add(value)) {
                throw invalid(commandLine, option.longestName(), "'" + String.join(",", option.originalStringValues())
                    + "' names " + value + " twice; give each once");
            }
        }
    }

    /** Checks a numeric value against its {@link Range}; {@code what} is "option '--x'" or a positional's label. */
    private static void checkRange(final CommandLine commandLine, final ArgSpec arg, final String what) {
        final Object value = arg.getValue();
        final List<Object> values = new ArrayList<>();
        if (value instanceof Collection<?> collection) {
            values.addAll(collection);
        } else if (value instanceof Object[] array) {
            values.addAll(List.of(array));
        } else if (value != null) {
            values.add(value);
        }
        final Range range = arg.userObject() instanceof Field field ? field.getAnnotation(Range.class) : null;
        for (final Object element : values) {
            if (!(element instanceof Number number)) {
                continue;
            }
            final double v = number.doubleValue();
            final double min = range == null ? 0 : range.min();
            final double max = range == null ? Double.MAX_VALUE : range.max();
            final boolean maxExclusive = range != null && range.maxExclusive();
            if (!Double.isFinite(v) || v < min || v > max || maxExclusive && v == max) {
                final boolean integral = !(number instanceof Double || number instanceof Float);
                // as typed: a double prints 0.0001 as 1.0E-4 and 0 as 0.0
                final String shown = values.size() == 1 && arg.originalStringValues().size() == 1
                    ? arg.originalStringValues().get(0).strip() : number.toString();
                throw new ParameterException(commandLine, "Invalid value for " + what + ": " + shown
                    + " is out of range; expected " + describe(min, max, maxExclusive, integral)
                    + (range == null || range.note().isEmpty() ? "" : " (" + range.note() + ")"));
            }
        }
    }

    private static String describe(final double min, final double max, final boolean maxExclusive, final boolean integral) {
        final String low = format(min, integral);
        if (max == Double.MAX_VALUE) {
            return low + " or more";
        }
        return maxExclusive ? "at least " + low + " and below " + format(max, integral) : low + " to " + format(max, integral);
    }

    private static String format(final double value, final boolean integral) {
        return integral || value == Math.rint(value) ? Long.toString((long)value) : Double.toString(value);
    }

    /** One line for a user error: the command, what is wrong, and where help is. */
    private static int onUserError(final ParameterException error, final String[] args) {
        CommandLine commandLine = error.getCommandLine();
        String message = error.getMessage() == null ? error.getClass().getSimpleName() : error.getMessage();
        if (error instanceof UnmatchedArgumentException unmatched) {
            message = unmatched(commandLine, unmatched);
        }
        // a word or option a parent did not know (bench --bogus pingpong) is the first mistake, not what the
        // subcommand then missed
        for (CommandLine parent = commandLine.getParent(); parent != null; parent = parent.getParent()) {
            if (!parent.getUnmatchedArguments().isEmpty()) {
                commandLine = parent;
                message = unmatched(parent, new UnmatchedArgumentException(parent, parent.getUnmatchedArguments()));
            }
        }
        final PrintWriter err = commandLine.getErr();
        final String name = commandLine.getCommandSpec().qualifiedName();
        err.println(name + ": " + oneLineText(message) + " (see ./" + name + " --help)");
        err.flush();
        return USAGE_ERROR;
    }

    private static String unmatched(final CommandLine commandLine, final UnmatchedArgumentException error) {
        final List<String> arguments = error.getUnmatched();
        final String first = arguments.isEmpty() ? "" : arguments.get(0);
        final List<String> suggestions = new ArrayList<>(error.getSuggestions());
        if (error.isUnknownOption()) {
            final String closest = closest(first.replaceFirst("=.*", ""), commandLine.getCommandSpec().optionsMap().keySet());
            return "unknown option '" + first + "'" + (closest != null ? "; did you mean " + closest + "?"
                : suggestions.isEmpty() ? "" : "; did you mean " + suggestions.get(0) + "?");
        }
        final List<String> commands = new ArrayList<>();
        for (final var entry : commandLine.getSubcommands().entrySet()) {
            if (!entry.getValue().getCommandSpec().usageMessage().hidden()) {
                commands.add(entry.getKey());
            }
        }
        if (commands.isEmpty()) {
            return "unexpected argument '" + first + "'";
        }
        final List<String> launcher = commandLine.getParent() == null ? LAUNCHER_COMMANDS : List.of();
        final List<String> all = new ArrayList<>(commands);
        all.addAll(launcher);
        final String closest = closest(first, all);
        return "'" + first + "' is not a command" + (closest != null ? "; did you mean " + closest + "?" : "")
            + "; commands: " + String.join(", ", commands)
            + (launcher.isEmpty() ? "" : ", and the launcher's " + String.join(", ", launcher));
    }

    private static String oneLineText(final String text) {
        return text.strip().replaceAll("\\s*[\r\n]+\\s*", " ");
    }

    /** One line for a failure while running; the stack trace only with --verbose. */
    private static int onFailure(final Exception error, final CommandLine commandLine, final ParseResult parseResult) {
        final PrintWriter err = commandLine.getErr();
        final boolean verbose = verbose(parseResult);
        err.println(commandLine.getCommandSpec().qualifiedName() + ": " + oneLine(error)
            + (verbose ? "" : " (" + VERBOSE + " for the stack trace)"));
        if (verbose) {
            error.printStackTrace(err);
        }
        err.flush();
        return FAILURE;
    }

    private static boolean verbose(final ParseResult parseResult) {
        for (ParseResult at = parseResult; at != null; at = at.subcommand()) {
            if (at.hasMatchedOption(VERBOSE)) {
                return true;
            }
        }
        return false;
    }
}
