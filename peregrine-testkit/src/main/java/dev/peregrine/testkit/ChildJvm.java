package dev.peregrine.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a child JVM that prints one line of figures and exits, as the tests that measure a fresh JVM's first calls
 * do: the child's standard error goes to the test's, its first line is the answer, and a child that does not exit
 * 0 within 60 s fails the test.
 */
public final class ChildJvm {
    private static final long EXIT_SECONDS = 60;

    private ChildJvm() {
    }

    /**
     * Starts {@code command}, reads its first line and waits for it to exit 0.
     *
     * @param command the child's command line (the java launcher first)
     * @return its first line, or "null" if it printed none
     * @throws IOException if it cannot be started or read
     * @throws InterruptedException if interrupted while waiting for it
     */
    public static String firstLine(final List<String> command) throws IOException, InterruptedException {
        final Process child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        final String line;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
            StandardCharsets.UTF_8))) {
            line = out.readLine();
        }
        if (!child.waitFor(EXIT_SECONDS, TimeUnit.SECONDS)) {
            child.destroyForcibly();
            throw new AssertionError("the child did not exit within " + EXIT_SECONDS + " s: " + command);
        }
        if (child.exitValue() != 0) {
            throw new AssertionError("the child exited with " + child.exitValue() + ": " + command);
        }
        return String.valueOf(line);
    }
}
