package dev.peregrine.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The ./peregrine launcher finds a JDK 25 by itself, whatever the default java is. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LauncherTest {
    private static final Path LAUNCHER = Path.of("..", "peregrine").toAbsolutePath().normalize();

    /** An environment with no JDK to find: whatever needs one fails at once, so nothing is built. */
    private static final Map<String, String> NO_JDK = Map.of("JAVA_HOME", "/nonexistent-jdk", "PATH",
        "/nonexistent-bin:/bin", "PEREGRINE_JDK_DIRS", "/nonexistent-jvm-folder");

    @Test
    void shouldFindAJdk25EvenWhenJavaHomeAndPathPointElsewhere() throws Exception {
        final Path thisJdk = Path.of(System.getProperty("java.home"));
        final Path jvmFolder = thisJdk.getParent();
        final Result result = run(Map.of("JAVA_HOME", "/nonexistent-jdk", "PATH", "/usr/bin:/bin",
            "PEREGRINE_JDK_DIRS", jvmFolder.toString()));
        assertThat(result.exitCode).as(result.output).isZero();
        final Path found = Path.of(result.output.strip());
        assertThat(Files.readString(found.resolve("release"))).containsPattern("JAVA_VERSION=\"(2[5-9]|[3-9][0-9])");
    }

    @Test
    void shouldFailWithOneClearSentenceWhenNoJdk25Exists() throws Exception {
        final Result result = run(Map.of("JAVA_HOME", "/nonexistent-jdk", "PATH", "/nonexistent-bin:/bin",
            "PEREGRINE_JDK_DIRS", "/nonexistent-jvm-folder"));
        assertThat(result.exitCode).isEqualTo(1);
        assertThat(result.output.strip()).startsWith("peregrine: no JDK 25 or newer found").contains("JAVA_HOME")
            .doesNotContain("\n");
    }

    @Test
    void shouldNameTheLaunchersOwnCommandsToTheCliForItsDidYouMean() throws Exception {
        final List<String> cases = Files.readAllLines(LAUNCHER).stream()
            .filter(line -> line.matches("  [a-z]+\\)"))
            .map(line -> line.strip().replace(")", "")).toList();
        assertThat(cases).containsExactlyInAnyOrderElementsOf(dev.peregrine.cli.Cli.LAUNCHER_COMMANDS);
    }

    // "build --help" built the project (a minute), "install --help" printed Maven's help and then "installed"
    @Test
    void shouldAnswerHelpForTheLaunchersOwnCommandsWithoutRunningThemOrNeedingAJdk() throws Exception {
        for (final String command : List.of("install", "jdk", "build", "test")) {
            for (final String help : List.of("--help", "-h")) {
                final Result result = run(NO_JDK, command, help);
                assertThat(result.exitCode).as(command + " " + help + ": " + result.output).isZero();
                assertThat(result.output).as(command).startsWith("Usage: ./peregrine " + command)
                    .doesNotContain("installed", "building", "no JDK");
            }
        }
    }

    // "jdk extra" printed the JDK and "build extra" built, the word ignored
    @Test
    void shouldRefuseArgumentsToCommandsThatTakeNone() throws Exception {
        for (final String command : List.of("jdk", "build")) {
            final Result result = run(NO_JDK, command, "--bogus");
            assertThat(result.exitCode).as(command + ": " + result.output).isEqualTo(2);
            assertThat(result.output.strip()).isEqualTo("peregrine " + command + ": takes no arguments; got '--bogus'"
                + " (see ./peregrine " + command + " --help)");
        }
    }

    private static Result run(final Map<String, String> env) throws IOException, InterruptedException {
        return run(env, "jdk");
    }

    private static Result run(final Map<String, String> env, final String... args) throws IOException, InterruptedException {
        final List<String> command = new java.util.ArrayList<>(List.of("bash", LAUNCHER.toString()));
        command.addAll(List.of(args));
        final ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().clear();
        builder.environment().put("HOME", System.getProperty("user.home"));
        builder.environment().putAll(env);
        builder.redirectErrorStream(true);
        final Process process = builder.start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Result(process.exitValue(), output);
    }

    private record Result(int exitCode, String output) {
    }
}
