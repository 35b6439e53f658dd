package dev.peregrine.bench.run;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the machine's floor command ({@code --floor CMD}, or {@code ../shared/floor/run} found next to the
 * repository) and parses its lines.
 */
public final class FloorRunner {
    private static final long TIMEOUT_S = 300;

    private FloorRunner() {
    }

    /**
     * What running the floor gave.
     *
     * @param command the command as run
     * @param results its floor lines
     * @param error why it failed, or null
     */
    public record Outcome(String command, List<FloorResult> results, String error) {
    }

    /**
     * Runs a command through {@code sh -c} and parses its output.
     *
     * @param command the command, e.g. {@code ../shared/floor/run 256 200000}
     * @return the outcome; never throws
     */
    public static Outcome run(final String command) {
        return run(command, TIMEOUT_S);
    }

    /**
     * Runs a command through {@code sh -c} with a time limit and parses its output.
     *
     * @param command the command
     * @param timeoutSeconds how long it may take before it is killed
     * @return the outcome; never throws
     */
    public static Outcome run(final String command, final long timeoutSeconds) {
        final Output output = capture(command, timeoutSeconds);
        if (output.error() != null) {
            return new Outcome(command, List.of(), output.error());
        }
        final String text = output.text();
        final List<FloorResult> results = FloorResult.parseAll(text);
        if (output.exitCode() != 0 || results.isEmpty()) {
            return new Outcome(command, results, "exit code " + output.exitCode()
                + (results.isEmpty() ? ", no floor lines in its output: " + output.tail() : ""));
        }
        return new Outcome(command, results, null);
    }

    /**
     * What a command printed.
     *
     * @param exitCode its exit code, or -1 if it did not finish
     * @param text its stdout and stderr together
     * @param error why it could not be run or did not finish, or null
     */
    record Output(int exitCode, String text, String error) {
        /**
         * The end of the text, for a message.
         *
         * @return at most its last 300 characters, stripped
         */
        String tail() {
            return (text.length() > 300 ? text.substring(text.length() - 300) : text).strip();
        }
    }

    /**
     * Runs a command through {@code sh -c} with a time limit and takes its output (stderr with stdout).
     *
     * @param command the command
     * @param timeoutSeconds how long it may take before it is killed
     * @return what it printed; never throws
     */
    static Output capture(final String command, final long timeoutSeconds) {
        try {
            final Process process = new ProcessBuilder("sh", "-c", command).redirectErrorStream(true).start();
            process.getOutputStream().close();
            final byte[][] output = new byte[1][];
            final Thread reader = new Thread(() -> {
                try (InputStream in = process.getInputStream()) {
                    output[0] = in.readAllBytes();
                } catch (final IOException ex) {
                    output[0] = new byte[0];
                }
            }, "floor-output");
            reader.start();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                return new Output(-1, "", "did not finish within " + timeoutSeconds + " s");
            }
            reader.join(5000);
            return new Output(process.exitValue(), output[0] == null ? "" : new String(output[0], StandardCharsets.UTF_8),
                null);
        } catch (final IOException ex) {
            return new Output(-1, "", Failures.oneLine(ex));
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
            return new Output(-1, "", "interrupted");
        }
    }

    /**
     * Runs several commands and joins their outcomes.
     *
     * @param commands the commands
     * @param timeoutSeconds the limit for each
     * @return all floor lines and the errors, joined
     */
    public static Outcome runAll(final List<String> commands, final long timeoutSeconds) {
        final List<FloorResult> results = new ArrayList<>();
        final List<String> errors = new ArrayList<>();
        for (final String command : commands) {
            final Outcome outcome = run(command, timeoutSeconds);
            results.addAll(outcome.results());
            if (outcome.error() != null) {
                errors.add(command + ": " + outcome.error());
            }
        }
        return new Outcome(String.join("; ", commands), results, errors.isEmpty() ? null : String.join("; ", errors));
    }

    /**
     * The floor script next to the repository, if there is one: {@code ../shared/floor/run} from the
     * repository root (or from its parent, for a git worktree one level deeper).
     *
     * @return the script, or null
     */
    public static Path findDefault() {
        return findScript("run");
    }

    /**
     * A program of the floor folder next to the repository, if there is one: {@code ../shared/floor/NAME} from
     * the repository root (or from its parent, for a git worktree one level deeper).
     *
     * @param name the program, e.g. {@code run} or {@code stream}
     * @return the executable, or null
     */
    public static Path findScript(final String name) {
        final Path root = repositoryRoot();
        if (root == null) {
            return null;
        }
        for (Path dir = root.getParent(); dir != null && dir.getNameCount() >= root.getNameCount() - 2;
             dir = dir.getParent()) {
            final Path script = dir.resolve("shared").resolve("floor").resolve(name);
            if (Files.isExecutable(script)) {
                return script;
            }
        }
        return null;
    }

    /**
     * The repository this CLI runs from: the folder holding {@code peregrine-cli} (the launcher's class path) or
     * {@code peregrine-bench} (this module's tests), found from the class path, or the working directory.
     *
     * @return the root, or null
     */
    public static Path repositoryRoot() {
        for (final String entry : System.getProperty("java.class.path", "").split(java.io.File.pathSeparator)) {
            Path path = Path.of(entry).toAbsolutePath().normalize();
            while (path != null) {
                final String name = path.getFileName() == null ? "" : path.getFileName().toString();
                if (name.equals("peregrine-cli") || name.equals("peregrine-bench")) {
                    return path.getParent();
                }
                path = path.getParent();
            }
        }
        final Path cwd = Path.of("").toAbsolutePath();
        return Files.exists(cwd.resolve("peregrine-bench")) ? cwd : null;
    }
}
