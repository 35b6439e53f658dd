package dev.peregrine.bench;

import dev.peregrine.testkit.Needs;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The C program BENCHMARKS.md cites for the cost of a send after other work ({@code src/test/c/cold_send.c}):
 * it builds without a warning, prints one line whose percentiles are in order, and refuses bad arguments.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ColdSendToolTest {
    private static final Path SOURCE = Path.of("src", "test", "c", "cold_send.c").toAbsolutePath();
    private static final Pattern LINE = Pattern.compile(
        "cold-send gap_us=(\\d+) work=(spin|walk|poll) count=(\\d+) p50_us=(\\d+\\.\\d\\d) p90_us=(\\d+\\.\\d\\d) p99_us=(\\d+\\.\\d\\d)");

    @TempDir
    static Path folder;
    private static Path binary;

    @BeforeAll
    static void build() throws Exception {
        final Path compiler = onPath("cc");
        Needs.installable("a C compiler (cc)", compiler != null, "none on the PATH to build " + SOURCE);
        binary = folder.resolve("cold_send");
        final Result built = run(List.of(compiler.toString(), "-O2", "-Wall", "-Wextra", "-Werror", "-o", binary.toString(),
            SOURCE.toString()));
        assertThat(built.exitCode).as(built.output).isZero();
    }

    @Test
    void shouldPrintOneLineOfPercentilesInOrder() throws Exception {
        final Result spin = run(List.of(binary.toString(), "0", "200"));
        assertThat(spin.exitCode).as(spin.output).isZero();
        assertLine(spin.output, "0", "spin", "200");

        final Result walk = run(List.of(binary.toString(), "20", "100", "walk"));
        assertThat(walk.exitCode).as(walk.output).isZero();
        assertLine(walk.output, "20", "walk", "100");

        final Result poll = run(List.of(binary.toString(), "20", "100", "poll"));
        assertThat(poll.exitCode).as(poll.output).isZero();
        assertLine(poll.output, "20", "poll", "100");
    }

    @Test
    void shouldRefuseMissingOrOutOfRangeArgumentsWithExitTwo() throws Exception {
        for (final List<String> arguments : List.of(List.<String>of(), List.of("-1"), List.of("0", "99"), List.of("0", "1000001"),
            List.of("0", "100", "nap"))) {
            final List<String> command = new ArrayList<>(List.of(binary.toString()));
            command.addAll(arguments);
            final Result refused = run(command);
            assertThat(refused.exitCode).as("%s: %s", arguments, refused.output).isEqualTo(2);
            assertThat(refused.output).as("%s", arguments).containsAnyOf("usage:", "GAP_US must be", "must be spin, walk or poll").doesNotContain("cold-send");
        }
    }

    private static void assertLine(final String output, final String gap, final String work, final String count) {
        final Matcher line = LINE.matcher(output.strip());
        assertThat(line.matches()).as(output).isTrue();
        assertThat(List.of(line.group(1), line.group(2), line.group(3))).containsExactly(gap, work, count);
        final double p50 = Double.parseDouble(line.group(4));
        final double p90 = Double.parseDouble(line.group(5));
        final double p99 = Double.parseDouble(line.group(6));
        assertThat(p50).as(output).isPositive().isLessThanOrEqualTo(p90);
        assertThat(p90).as(output).isLessThanOrEqualTo(p99);
    }

    private static Path onPath(final String name) {
        for (final String entry : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            final Path candidate = Path.of(entry.isEmpty() ? "." : entry, name);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    private static Result run(final List<String> command) throws IOException, InterruptedException {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as(String.join(" ", command)).isTrue();
        return new Result(process.exitValue(), output);
    }

    private record Result(int exitCode, String output) {
    }
}
