package dev.peregrine.cli;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ./peregrine stat --dir DIR ...} run in this JVM, with what it printed and answered.
 *
 * @param code the exit code
 * @param out standard output
 * @param err standard error
 */
record StatRun(int code, String out, String err) {
    /**
     * Runs {@code stat} over the counters files in {@code dir}.
     *
     * @param dir the counters directory ({@code --dir})
     * @param args the rest of the command line
     * @return what it printed and answered
     */
    static StatRun stat(final Path dir, final String... args) {
        final List<String> all = new ArrayList<>(List.of("stat", "--dir", dir.toString()));
        all.addAll(List.of(args));
        final CommandLine commandLine = Main.commandLine();
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        final int code = commandLine.execute(all.toArray(String[]::new));
        return new StatRun(code, out.toString(), err.toString());
    }
}
