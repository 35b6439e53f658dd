package dev.peregrine.cli.testing;

import dev.peregrine.cli.Main;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * One run of the command line in this JVM, as {@code ./peregrine} would run it ({@link Main#commandLine()}), with
 * what it printed on {@code System.out} and {@code System.err}: the commands print their tables and the
 * bench's progress there, not to picocli's writers.
 *
 * @param code the exit code
 * @param out what went to standard output
 * @param err what went to standard error
 */
public record CliRun(int code, String out, String err) {
    /**
     * Runs the command line with these arguments; the JVM's streams are restored afterwards, also when it throws.
     *
     * @param args the arguments after {@code ./peregrine}
     * @return the exit code and the captured output
     */
    public static CliRun execute(final String... args) {
        final PrintStream savedOut = System.out;
        final PrintStream savedErr = System.err;
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        final int code;
        try {
            code = Main.commandLine().execute(args);
        } finally {
            System.setOut(savedOut);
            System.setErr(savedErr);
        }
        return new CliRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
