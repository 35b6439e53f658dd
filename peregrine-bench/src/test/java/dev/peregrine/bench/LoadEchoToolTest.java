package dev.peregrine.bench;

import dev.peregrine.testkit.Needs;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
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
 * The C program docs/scaling-1000.md cites for the machine's own cost of bench load's pattern
 * ({@code src/test/c/load_echo.c}): it builds without a warning, every message sent comes back (one read and one
 * write a message on the client in closed mode), each side prints its line, and bad arguments exit 2.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LoadEchoToolTest {
    private static final Path SOURCE = Path.of("src", "test", "c", "load_echo.c").toAbsolutePath();
    private static final Pattern CLIENT = Pattern.compile("client (rate|closed) conns=(\\d+) size=(\\d+) messages=(\\d+) "
        + "msg/s=\\d+ cpu_us/msg=[\\d.]+ reads/msg=([\\d.]+) writes/msg=([\\d.]+) epoll_waits/msg=[\\d.]+ "
        + "p50_us=([\\d.]+) p99_us=([\\d.]+) max_us=([\\d.]+)");
    private static final Pattern RESPONDER = Pattern.compile("responder bytes=(\\d+) cpu_ms=[\\d.]+ reads=\\d+ writes=\\d+ "
        + "epoll_waits=\\d+");

    @TempDir
    static Path folder;
    private static Path binary;

    @BeforeAll
    static void build() throws Exception {
        final Path compiler = onPath("cc");
        Needs.installable("a C compiler (cc)", compiler != null, "none on the PATH to build " + SOURCE);
        binary = folder.resolve("load_echo");
        final Result built = run(List.of(compiler.toString(), "-O2", "-Wall", "-Wextra", "-Werror", "-o", binary.toString(),
            SOURCE.toString()));
        assertThat(built.exitCode).as(built.output).isZero();
    }

    @Test
    void shouldEchoEveryMessageAtAFixedRateOverManyConnections() throws Exception {
        // 600 messages over 0.3 s on 100 connections: each comes back, the responder read every byte once
        final Result result = run(List.of(binary.toString(), "rate", "100", "2000", "0.3", "256"));
        assertThat(result.exitCode).as(result.output).isZero();
        final Matcher client = find(CLIENT, result.output);
        assertThat(List.of(client.group(1), client.group(2), client.group(3), client.group(4)))
            .containsExactly("rate", "100", "256", "600");
        assertThat(Double.parseDouble(client.group(7))).as(result.output)
            .isLessThanOrEqualTo(Double.parseDouble(client.group(8)));
        assertThat(find(RESPONDER, result.output).group(1)).isEqualTo(Long.toString(600 * 256));
    }

    @Test
    void shouldKeepOneMessageInFlightPerConnectionInClosedMode() throws Exception {
        final Result result = run(List.of(binary.toString(), "closed", "10", "0", "0.2", "64"));
        assertThat(result.exitCode).as(result.output).isZero();
        final Matcher client = find(CLIENT, result.output);
        assertThat(List.of(client.group(1), client.group(2), client.group(3))).containsExactly("closed", "10", "64");
        final long messages = Long.parseLong(client.group(4));
        assertThat(messages).isPositive();
        // one message in flight per connection: never two in one read or one write
        assertThat(client.group(5)).isEqualTo("1.000");
        assertThat(client.group(6)).isEqualTo("1.000");
        assertThat(find(RESPONDER, result.output).group(1)).isEqualTo(Long.toString(messages * 64));
    }

    @Test
    void shouldRefuseBadArgumentsWithExitTwo() throws Exception {
        for (final List<String> arguments : List.of(List.<String>of(), List.of("fast", "1", "1", "1"),
            List.of("rate", "0", "100", "1"), List.of("rate", "10", "0", "1"), List.of("closed", "10", "0", "0"),
            List.of("closed", "10", "0", "1", "8"))) {
            final List<String> command = new ArrayList<>(List.of(binary.toString()));
            command.addAll(arguments);
            final Result refused = run(command);
            assertThat(refused.exitCode).as("%s: %s", arguments, refused.output).isEqualTo(2);
            assertThat(refused.output).as("%s", arguments).containsAnyOf("usage:", "mode must be")
                .doesNotContain("client ");
        }
    }

    private static Matcher find(final Pattern pattern, final String output) {
        final Matcher matcher = pattern.matcher(output);
        assertThat(matcher.find()).as(output).isTrue();
        return matcher;
    }

    private static Path onPath(final String name) {
        for (final String entry : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
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
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as(String.join(" ", command)).isTrue();
        return new Result(process.exitValue(), output);
    }

    private record Result(int exitCode, String output) {
    }
}
