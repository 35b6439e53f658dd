package dev.peregrine.cli;

import dev.peregrine.testkit.Needs;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Walks the whole command line from picocli's own model and gives every option bad values: each must be answered
 * with exit code 2, one line on stderr naming the option, no stack trace, and nothing run (the command is never
 * reached, so no JVM is started and no socket opened). An option with no testable bad value must be exempt here,
 * with a reason; anything else fails, so a new option is covered without anyone adding a case.
 */
class CommandLineErrorsTest {
    /** Options with no meaningful invalid value, by "command path option". */
    private static final Map<String, String> EXEMPT = Map.of(
        "peregrine bench compare --floor", "a shell command run as given: any text is a command line",
        "peregrine bench pingpong --floor", "a shell command run as given: any text is a command line",
        "peregrine bench throughput --stream-floor", "a shell command run as given: any text is a command line",
        "peregrine stat --dir", "a folder to look in: a missing or empty one has no processes, and says so",
        "peregrine bench pingpong --stack", "shared|separated, checked against --transport after parsing: PingPongStackTest"
            + " answers a bad value and a transport without a separated stack in one line, exit 2",
        "peregrine fanout tail --dir", "a folder of logs: a missing log in it is answered by FanoutCommandTest",
        "peregrine mold listen --fanout-dir", "a folder made 0700 if missing; one refused (mode, owner) is answered"
            + " when the log is made");
    /** Positional parameters with no meaningful invalid value. */
    private static final Map<String, String> EXEMPT_POSITIONAL = Map.of(
        "peregrine help", "picocli's help command: any name is looked up, an unknown one answered (shouldAnswerAMistyped...)",
        "peregrine stat", "a pid: picocli refuses a non-number; one with no counters file is answered by StatCommandTest",
        "peregrine fanout tail", "a log name: FanoutCommand.LogName refuses a bad one, FanoutCommandTest a missing one");
    /** Valid values for required options, so that only the option under test is wrong. */
    private static final Map<String, String> REQUIRED_VALUES = Map.of(
        "--transport", "peregrine-tcp", "--port", "40000", "--size", "64", "--dir", "target");
    /** Bad values for the options that a converter checks, by converter. */
    private static final Map<Class<?>, List<String>> BAD_BY_CONVERTER = Map.ofEntries(
        Map.entry(Converters.TransportName.class, List.of("", "tcpp", "no-such-transport")),
        Map.entry(Converters.Host.class, List.of("", "no-such-host.invalid")),
        Map.entry(Converters.LocalAddress.class, List.of("", "no-such-host.invalid", "203.0.113.7")),
        Map.entry(Converters.GroupOrNone.class, List.of("", "no-such-host.invalid")),
        Map.entry(Converters.InterfaceName.class, List.of("", "no-such-if0")),
        Map.entry(Converters.WritableFile.class, List.of("", "/nonexistent/dir/x.json", ".")),
        Map.entry(Converters.StoreFile.class, List.of("", "/nonexistent/dir/x.store", ".")),
        Map.entry(Converters.SessionName.class, List.of("", "ELEVEN-CHAR", "two words")),
        Map.entry(FramingConverter.class, List.of("", "length:3xx", "bogus")),
        Map.entry(LoadCommand.TopologyConverter.class, List.of("", "one-server", "per_client")),
        Map.entry(PingPongCommand.ClientWaitConverter.class, List.of("", "sleep", "blocking")),
        Map.entry(HandoffCommand.ImplementationName.class, List.of("", "disrupter", "peregrine")),
        Map.entry(FanoutBenchCommand.TransportName.class, List.of("", "aeron-ipd", "peregrine")),
        Map.entry(Converters.BatchValue.class, List.of("", "0", "-5", "64kb", "2GiB", "1.5KiB")),
        Map.entry(FanoutCommand.LogName.class, List.of("", "../up", ".hidden")),
        Map.entry(FanoutCommand.StartConverter.class, List.of("", "sideways")),
        Map.entry(SoupCommand.HostPort.class, List.of("", "127.0.0.1", "127.0.0.1:0", "127.0.0.1:70000", "no-such-host.invalid:5001")),
        Map.entry(SoupCommand.MoldEndpoint.class, List.of("", "none", "none:0", "239.1.1.1:x", "no-such-host.invalid:5000")));
    private static final Set<Class<?>> INTEGRAL = Set.of(int.class, Integer.class, long.class, Long.class);
    private static final Set<Class<?>> DECIMAL = Set.of(double.class, Double.class, float.class, Float.class);

    @TestFactory
    Stream<DynamicTest> shouldAnswerEveryBadValueWithOneLineAndExitCode2() {
        final List<DynamicTest> tests = new ArrayList<>();
        walk(Main.commandLine().getCommandSpec(), (spec, option, bad) -> tests.add(DynamicTest.dynamicTest(
            spec.qualifiedName() + " " + option.longestName() + "=" + bad, () -> assertRefused(spec, option, bad))));
        assertThat(tests).hasSizeGreaterThan(100);
        return tests.stream();
    }

    @Test
    void shouldFindEveryOptionTestableOrExempt() {
        final Set<String> untestable = new TreeSet<>();
        final Set<String> exemptSeen = new TreeSet<>();
        walkAll(Main.commandLine().getCommandSpec(), (spec, option) -> {
            final String key = spec.qualifiedName() + " " + option.longestName();
            if (EXEMPT.containsKey(key)) {
                exemptSeen.add(key);
            } else if (!isFlag(option) && badValues(option).isEmpty()) {
                untestable.add(key + " (" + option.type().getSimpleName() + ")");
            }
        }, (spec, positional) -> {
            if (!EXEMPT_POSITIONAL.containsKey(spec.qualifiedName())) {
                untestable.add(spec.qualifiedName() + " " + positional.paramLabel());
            }
        });
        assertThat(untestable).as("options with no known bad value: give them a checking converter or a @Range,"
            + " or exempt them here with a reason").isEmpty();
        assertThat(exemptSeen).as("exemptions must name existing options").isEqualTo(EXEMPT.keySet());
    }

    private interface OptionVisitor {
        void visit(CommandSpec spec, OptionSpec option);
    }

    private interface PositionalVisitor {
        void visit(CommandSpec spec, ArgSpec positional);
    }

    private interface CaseVisitor {
        void visit(CommandSpec spec, OptionSpec option, String bad);
    }

    private static void walkAll(final CommandSpec spec, final OptionVisitor options, final PositionalVisitor positionals) {
        for (final OptionSpec option : spec.options()) {
            options.visit(spec, option);
        }
        for (final ArgSpec positional : spec.positionalParameters()) {
            positionals.visit(spec, positional);
        }
        for (final CommandLine sub : spec.subcommands().values()) {
            walkAll(sub.getCommandSpec(), options, positionals);
        }
    }

    private static void walk(final CommandSpec root, final CaseVisitor visitor) {
        walkAll(root, (spec, option) -> {
            for (final String bad : badValues(option)) {
                visitor.visit(spec, option, bad);
            }
        }, (spec, positional) -> { });
    }

    private static boolean isFlag(final OptionSpec option) {
        return option.arity().max() == 0; // a flag takes no value: there is nothing to get wrong
    }

    /** Bad values as fit the option: from its converter, or from its numeric type and range. */
    private static List<String> badValues(final OptionSpec option) {
        if (isFlag(option)) {
            return List.of();
        }
        for (final CommandLine.ITypeConverter<?> converter : option.converters()) {
            final List<String> bad = BAD_BY_CONVERTER.get(converter.getClass());
            if (bad != null) {
                return bad;
            }
        }
        final Class<?> type = option.auxiliaryTypes().length > 0 && !option.type().isPrimitive()
            && !Number.class.isAssignableFrom(option.type()) ? option.auxiliaryTypes()[0] : option.type();
        final boolean integral = INTEGRAL.contains(type);
        if (!integral && !DECIMAL.contains(type)) {
            return List.of();
        }
        final Range range = option.userObject() instanceof Field field ? field.getAnnotation(Range.class) : null;
        final double min = range == null ? 0 : range.min();
        final List<String> bad = new ArrayList<>(List.of("", "abc", "99999999999999999999999"));
        if (integral) {
            bad.add(Long.toString((long)Math.ceil(min) - 1));
        } else {
            bad.addAll(List.of(min > 0 ? "0" : Double.toString(min - 1), "NaN", "1e999"));
        }
        if (range != null && range.max() != Double.MAX_VALUE) {
            bad.add(integral ? Long.toString((long)range.max() + (range.maxExclusive() ? 0 : 1))
                : Double.toString(range.max() + (range.maxExclusive() ? 0 : 1)));
        }
        return bad;
    }

    private static void assertRefused(final CommandSpec spec, final OptionSpec option, final String bad) {
        final List<String> args = new ArrayList<>(List.of(spec.qualifiedName().split(" ")));
        args.remove(0);
        for (final OptionSpec other : spec.options()) {
            if (other.required() && other != option) {
                assertThat(REQUIRED_VALUES).as("a valid value for required option " + other.longestName())
                    .containsKey(other.longestName());
                args.add(other.longestName() + "=" + REQUIRED_VALUES.get(other.longestName()));
            }
        }
        args.add(option.longestName() + "=" + bad);
        final Outcome outcome = run(args);
        final String context = args + " -> stdout: " + outcome.out + " stderr: " + outcome.err;
        assertThat(outcome.reached).as("the command ran: " + context).isZero();
        assertThat(outcome.code).as(context).isEqualTo(2);
        assertThat(outcome.err.lines().toList()).as(context).hasSize(1);
        assertThat(outcome.err).as(context).contains(option.longestName());
        assertThat(outcome.out + outcome.err).as(context).doesNotContainPattern("(?m)^\\s*at ").doesNotContain("Exception");
    }

    /** The outcome of a command line run in-process up to the point where the command would run. */
    record Outcome(int code, String out, String err, int reached) {
    }

    static Outcome run(final List<String> args) {
        final AtomicInteger reached = new AtomicInteger();
        final CommandLine commandLine = Main.commandLine(parseResult -> {
            reached.incrementAndGet();
            return 0;
        });
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        final int code = commandLine.execute(args.toArray(String[]::new));
        return new Outcome(code, out.toString(), err.toString(), reached.get());
    }

    @Test
    void shouldAcceptShortTransportNamesAndSuggestTheClosestForAnUnknownOne() {
        final Outcome ok = run(List.of("bench", "pingpong", "--transport", "tcp,udp,shm,mold"));
        assertThat(ok.code).as(ok.err).isZero();
        assertThat(ok.reached).isEqualTo(1);

        final Outcome typo = run(List.of("bench", "pingpong", "--transport", "peregrine-tpc"));
        assertThat(typo.code).isEqualTo(2);
        assertThat(typo.err).contains("'peregrine-tpc' is not a transport; did you mean peregrine-tcp?",
            "known: ", "peregrine-shm", "tcp=peregrine-tcp");
        final Outcome far = run(List.of("bench", "load", "--transport", "carrier-pigeon"));
        assertThat(far.err).doesNotContain("did you mean").contains("known: ", "peregrine-udp");
    }

    @Test
    void shouldAnswerAMistypedCommandWithOneLineNamingTheClosestIncludingTheLaunchersOwn() {
        final Outcome bogus = run(List.of("bogus"));
        assertThat(bogus.code).isEqualTo(2);
        assertThat(bogus.err.lines().toList()).hasSize(1);
        assertThat(bogus.err).contains("'bogus' is not a command", "bench", "echo", "install").doesNotContain("did you mean");
        assertThat(run(List.of("tset")).err).contains("did you mean test?");
        assertThat(run(List.of("bench", "pingpnog")).err).contains("did you mean pingpong?");
        final StringWriter err = new StringWriter();
        final CommandLine real = Main.commandLine(); // help only prints: run it for real
        real.setErr(new PrintWriter(err, true));
        real.setOut(new PrintWriter(new StringWriter(), true));
        final Outcome help = new Outcome(real.execute("help", "bogus"), "", err.toString(), 0);
        assertThat(help.code).isEqualTo(2);
        assertThat(help.err.lines().toList()).hasSize(1);
        assertThat(help.err).contains("bogus");
    }

    @Test
    void shouldTakeMoldAnswersFromTheRequestServerOnlyByDefaultAndRefuseAWildcardServerThen() {
        final Outcome wildcard = run(List.of("mold", "listen", "--group", "none", "--request-host", "0.0.0.0"));
        assertThat(wildcard.code).isEqualTo(2);
        assertThat(wildcard.err.lines().toList()).hasSize(1);
        assertThat(wildcard.err).contains("'--request-host'", "0.0.0.0 is the wildcard address",
            "--no-answers-only-from-request-server");
        assertThat(run(List.of("mold", "listen", "--group", "none", "--no-answers-only-from-request-server",
            "--request-host", "0.0.0.0")).reached).as("any sender, when asked").isEqualTo(1);

        final CommandLine byDefault = Main.commandLine();
        byDefault.parseArgs("mold", "listen", "--group", "none");
        final MoldCommand.Listen only = byDefault.getSubcommands().get("mold").getSubcommands().get("listen").getCommand();
        assertThat(only.app().answersOnlyFromRequestServer()).isTrue();
        final CommandLine explicit = Main.commandLine();
        explicit.parseArgs("mold", "listen", "--group", "none", "--answers-only-from-request-server");
        final MoldCommand.Listen asked = explicit.getSubcommands().get("mold").getSubcommands().get("listen").getCommand();
        assertThat(asked.app().answersOnlyFromRequestServer()).isTrue();
        final CommandLine any = Main.commandLine();
        any.parseArgs("mold", "listen", "--group", "none", "--no-answers-only-from-request-server");
        final MoldCommand.Listen anySender = any.getSubcommands().get("mold").getSubcommands().get("listen").getCommand();
        assertThat(anySender.app().answersOnlyFromRequestServer()).isFalse();
    }

    @Test
    void shouldRefuseZeroWhereZeroMeansNothingAndAcceptItWhereItMeansSomething() {
        assertThat(run(List.of("bench", "load", "--transport", "tcp", "--rates", "0")).err)
            .contains("'--rates'", "0 is out of range; expected 1 to 1000000000");
        assertThat(run(List.of("bench", "pingpong", "--transport", "tcp", "--size", "-1")).err)
            .contains("'--size'", "-1 is out of range; expected 4 to 1048576");
        assertThat(run(List.of("mold", "publish", "--size", "5")).err).contains("'--size'", "expected 8 to 1450");
        assertThat(run(List.of("bench", "pingpong", "--transport", "tcp", "--rate", "0", "--time-limit", "0")).reached)
            .isEqualTo(1);
        assertThat(run(List.of("bench", "pingpong", "--transport", "tcp", "--cpu", "0,1,0")).err)
            .contains("'--cpu'", "expected CLIENT or CLIENT,RESPONDER");
        final int cpus = Runtime.getRuntime().availableProcessors();
        assertThat(run(List.of("bench", "pingpong", "--transport", "tcp", "--cpu", Integer.toString(cpus))).err)
            .contains("'--cpu'", cpus + " is not a CPU of this machine");
    }

    @Test
    void shouldRefuseLoadLossForATransportWithoutRecoveryBeforeAnythingStarts() {
        assertThat(run(List.of("bench", "load", "--transport", "mold", "--loss", "1")).err)
            .contains("'--loss'", "is out of range; expected at least 0 and below 1");
        final StringWriter err = new StringWriter();
        final CommandLine real = Main.commandLine(); // the check needs the transports: it runs in the command
        real.setErr(new PrintWriter(err, true));
        real.setOut(new PrintWriter(new StringWriter(), true));

        final int code = real.execute("bench", "load", "--transport", "mold,tcp", "--loss", "0.1", "--seconds", "0.001");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString().lines().toList()).hasSize(1);
        assertThat(err.toString()).contains("--loss=0.1 needs transports whose clients can drop packets that a recovery"
            + " layer brings back; peregrine-tcp has none (use peregrine-mold)").doesNotContain("Exception");
    }

    @Test
    void shouldNameTheFolderThatIsMissingForAFileThatCannotBeWritten() {
        final Outcome outcome = run(List.of("bench", "pingpong", "--transport", "tcp", "--json", "/nonexistent/dir/x.json"));
        assertThat(outcome.code).isEqualTo(2);
        assertThat(outcome.err).contains("'--json'", "/nonexistent/dir/x.json", "folder /nonexistent/dir does not exist");
        assertThat(Path.of("/nonexistent")).doesNotExist();
    }

    // throughput's --rate stopped at a message a nanosecond; ping-pong's and load's took any rate and ran a schedule
    // finer than the clock
    @Test
    void shouldRefuseARateOfMoreThanAMessageANanosecondInEveryScenario() {
        assertThat(run(List.of("bench", "pingpong", "--transport", "tcp", "--rate", "99999999999999")).err)
            .contains("'--rate': 99999999999999 is out of range; expected 0 to 1000000000");
        assertThat(run(List.of("bench", "load", "--transport", "tcp", "--rates", "2000000000", "--seconds", "0.001",
            "--warmup-seconds", "0")).err).contains("'--rates': 2000000000 is out of range; expected 1 to 1000000000");
        assertThat(run(List.of("bench", "compare", "--full", "--rates", "2000000000", "--load-seconds", "0.001")).err)
            .contains("'--rates': 2000000000 is out of range");
        assertThat(run(List.of("bench", "pingpong", "--transport", "tcp", "--rate", "1000000000")).reached).isEqualTo(1);
    }

    // a decimal was shown as Java prints a double (1.0E-4, 0.0), and a positional parameter was called an option
    @Test
    void shouldShowAnOutOfRangeValueAsTypedAndCallAPositionalByItsLabel() {
        assertThat(run(List.of("bench", "load", "--transport", "tcp", "--seconds", "0.0001")).err)
            .contains("'--seconds': 0.0001 is out of range; expected 0.001 to 86400");
        assertThat(run(List.of("bench", "compare", "--budget", "0")).err).contains("'--budget': 0 is out of range");
        assertThat(run(List.of("bench", "pingpong", "--transport", "tcp", "--size", "8,2")).err)
            .contains("'--size': 2 is out of range");
        final Outcome pid = run(List.of("stat", "-5"));
        assertThat(pid.code).isEqualTo(2);
        assertThat(pid.err).contains("Invalid value for <pid>: -5 is out of range").doesNotContain("option");
    }

    // an option that another one makes meaningless was ignored without a word
    @Test
    void shouldRefuseOptionsThatExcludeEachOtherOrHaveNothingToSet() {
        final Map<List<String>, List<String>> refused = new LinkedHashMap<>();
        refused.put(List.of("bench", "compare", "--floor", "./floor", "--no-floor"),
            List.of("'--no-floor'", "--floor and --no-floor exclude each other"));
        refused.put(List.of("bench", "pingpong", "--transport", "tcp", "--rounds", "3", "--floor", "./floor", "--no-floor"),
            List.of("'--no-floor'", "--floor and --no-floor exclude each other"));
        refused.put(List.of("bench", "throughput", "--transport", "tcp", "--no-stream-floor", "--stream-floor", "x"),
            List.of("'--no-stream-floor'", "--stream-floor and --no-stream-floor exclude each other"));
        refused.put(List.of("bench", "throughput", "--transport", "tcp", "--messages", "1000", "--seconds", "5"),
            List.of("'--seconds'", "--messages"));
        refused.put(List.of("bench", "throughput", "--transport", "tcp", "--warmup-seconds", "3", "--messages", "1000"),
            List.of("'--warmup-seconds'", "--messages"));
        for (final String option : List.of("--clients", "--rates", "--load-seconds", "--load-size",
            "--throughput-seconds")) {
            refused.put(List.of("bench", "compare", option, "64"), List.of("'" + option + "'", "--full"));
        }
        refused.forEach((args, mentions) -> {
            final Outcome outcome = run(args);
            assertThat(outcome.reached).as(args + ": " + outcome.err).isZero();
            assertThat(outcome.code).as(args.toString()).isEqualTo(2);
            assertThat(outcome.err.lines().toList()).as(args.toString()).hasSize(1);
            assertThat(outcome.err).as(args.toString()).contains(mentions);
        });
        assertThat(run(List.of("bench", "compare", "--full", "--clients", "64")).reached).isEqualTo(1);
        assertThat(run(List.of("bench", "throughput", "--transport", "tcp", "--messages", "1000", "--warmup", "10"))
            .reached).as("--warmup counts a run of --messages exactly").isEqualTo(1);
    }

    // compare --full lacked load's check: a rate no run can hold failed with exit code 1 after every ping-pong run
    @Test
    void shouldRefuseALoadRateNoRunHoldsInCompareBeforeAnythingRuns() {
        final Outcome compare = run(List.of("bench", "compare", "--full", "--rates", "1000,1000000000",
            "--load-seconds", "3"));
        assertThat(compare.reached).as(compare.err).isZero();
        assertThat(compare.code).isEqualTo(2);
        assertThat(compare.err.lines().toList()).hasSize(1);
        assertThat(compare.err).contains("'--rates'", "1000000000 messages per second", "more than a run holds");
        final Outcome load = run(List.of("bench", "load", "--transport", "tcp", "--rates", "1000000000", "--seconds",
            "3"));
        assertThat(load.reached).as("checked with the other options, before the command: " + load.err).isZero();
        assertThat(load.err).contains("'--rates'", "more than a run holds");
    }

    // throughput's --rounds had no range: -1 was told "expected 0 or more", and 0 was refused only once it ran
    @Test
    void shouldRefuseThroughputRoundsBelowOneBeforeItRunsAsLoadDoes() {
        for (final String rounds : List.of("0", "-1", "1001")) {
            final Outcome outcome = run(List.of("bench", "throughput", "--transport", "tcp", "--rounds", rounds));
            assertThat(outcome.reached).as(outcome.err).isZero();
            assertThat(outcome.code).isEqualTo(2);
            assertThat(outcome.err).contains("'--rounds'", rounds + " is out of range; expected 1 to 1000");
        }
    }

    // a repeated item ran the same measurement again, and its --hgrm file replaced the first one's
    @Test
    void shouldRefuseAListThatNamesAnItemTwice() {
        final Outcome transports = run(List.of("bench", "pingpong", "--transport", "tcp,socket,peregrine-tcp"));
        assertThat(transports.reached).as(transports.err).isZero();
        assertThat(transports.code).isEqualTo(2);
        assertThat(transports.err.lines().toList()).hasSize(1);
        assertThat(transports.err).contains("'--transport'", "tcp,socket,peregrine-tcp", "peregrine-tcp twice");
        assertThat(run(List.of("bench", "throughput", "--transport", "tcp", "--size", "32,64", "--size", "32")).err)
            .contains("'--size'", "32 twice");
        assertThat(run(List.of("bench", "load", "--transport", "tcp", "--rates", "1000,1000")).err)
            .contains("'--rates'", "1000 twice");
        assertThat(run(List.of("bench", "compare", "--size", "256,256")).err).contains("'--size'", "256 twice");
        assertThat(run(List.of("bench", "pingpong", "--transport", "tcp", "--cpu", "0,0")).reached)
            .as("--cpu CLIENT,RESPONDER may pin both to one CPU").isEqualTo(1);
    }

    // a folder can look writable and still take no new file (/proc; anything, to root): the results were lost at the end
    @Test
    void shouldRefuseAFileThatCannotBeCreatedBeforeAnythingRuns() {
        Needs.platform("/proc", Files.exists(Path.of("/proc/self")), "no /proc/self"); // no file can be made in /proc, even by root
        final Outcome json = run(List.of("bench", "pingpong", "--transport", "tcp", "--json", "/proc/x.json"));
        assertThat(json.reached).as(json.err).isZero();
        assertThat(json.code).isEqualTo(2);
        assertThat(json.err.lines().toList()).hasSize(1);
        assertThat(json.err).contains("'--json'", "/proc/x.json", "cannot be written");
        assertThat(run(List.of("bench", "compare", "--report", "/proc/report.html")).err)
            .contains("'--report'", "/proc/report.html", "cannot be written");
        assertThat(Path.of("/proc/x.json")).doesNotExist();
    }

    // each file option writes its own file: the last one written replaced the others
    @Test
    void shouldRefuseTwoFileOptionsNamingOneFile(@TempDir final Path folder) {
        final String file = folder.resolve("run.json").toString();
        final Outcome both = run(List.of("bench", "pingpong", "--transport", "tcp", "--json", file, "--hgrm",
            folder.resolve(".").resolve("run.json").toString()));
        assertThat(both.reached).as(both.err).isZero();
        assertThat(both.code).isEqualTo(2);
        assertThat(both.err.lines().toList()).hasSize(1);
        assertThat(both.err).contains("'--hgrm'", "--json", "run.json");
        assertThat(run(List.of("bench", "compare", "--json", "report.html")).err)
            .contains("'--json'", "report.html", "--report");
        assertThat(Path.of(file)).doesNotExist();
    }

    @Test
    void shouldWalkEveryCommandIncludingTheHiddenOnes() {
        final Map<String, Integer> options = new LinkedHashMap<>();
        walkAll(Main.commandLine().getCommandSpec(), (spec, option) -> options.merge(spec.qualifiedName(), 1, Integer::sum),
            (spec, positional) -> { });
        assertThat(options).containsKeys("peregrine", "peregrine bench pingpong", "peregrine bench load",
            "peregrine bench throughput", "peregrine bench compare", "peregrine echo",
            "peregrine hello", "peregrine mold publish", "peregrine mold listen");
    }
}
