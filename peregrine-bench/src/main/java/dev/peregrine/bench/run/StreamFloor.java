package dev.peregrine.bench.run;

import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The kernel's limit for one-way TCP streaming on this machine, from {@code ../shared/floor/stream SIZE SECONDS}:
 * a C writer packing frames of {@code [int32 length][SIZE bytes]} into large writes and a C reader walking every
 * frame of large reads. It prints exactly one line,
 * {@code tcp-stream-c size=256 frames/s=4123456 bytes/s=1071241216} ({@code bytes/s} counts the 4-byte length
 * prefixes too).
 *
 * @param size the message size (payload bytes per frame)
 * @param framesPerSecond frames per second over its window
 * @param bytesPerSecond bytes per second as the program counts them, length prefixes included
 */
public record StreamFloor(int size, double framesPerSecond, double bytesPerSecond) {
    /** The name of the row in tables and JSON. */
    public static final String NAME = "tcp-stream-c";
    /** The program in the floor folder next to the repository. */
    public static final String PROGRAM = "stream";
    private static final Pattern LINE = Pattern.compile(
        "tcp-stream-c size=(\\d{1,9}) frames/s=(\\d{1,18}(?:\\.\\d{1,9})?) bytes/s=(\\d{1,18}(?:\\.\\d{1,9})?)");

    /**
     * Parses the program's whole output strictly: one line (a final line end allowed), every field present,
     * in order, with nothing else, for the size asked for, and positive rates.
     *
     * @param output everything the program printed
     * @param expectedSize the size it was run with
     * @return the result
     * @throws IllegalArgumentException naming what is wrong, with the output
     */
    public static StreamFloor parse(final String output, final int expectedSize) {
        if (output == null) {
            throw new IllegalArgumentException("no output");
        }
        final String line = output.endsWith("\r\n") ? output.substring(0, output.length() - 2)
            : output.endsWith("\n") ? output.substring(0, output.length() - 1) : output;
        final Matcher m = LINE.matcher(line);
        if (!m.matches()) {
            throw new IllegalArgumentException("output=" + quote(output) + " is not one line 'tcp-stream-c size=N"
                + " frames/s=F bytes/s=B'");
        }
        final int size = Integer.parseInt(m.group(1));
        if (size != expectedSize) {
            throw new IllegalArgumentException("size=" + size + " in output=" + quote(output) + ", expected size="
                + expectedSize);
        }
        final double frames = Double.parseDouble(m.group(2));
        final double bytes = Double.parseDouble(m.group(3));
        if (frames <= 0 || bytes <= 0) {
            throw new IllegalArgumentException("frames/s and bytes/s must be positive in output=" + quote(output));
        }
        return new StreamFloor(size, frames, bytes);
    }

    private static String quote(final String text) {
        final String shown = text.length() > 200 ? text.substring(0, 200) + "..." : text;
        return "'" + shown.replace("\n", "\\n").replace("\r", "\\r") + "'";
    }

    /**
     * Payload bytes per second (the size per frame, without the length prefix), comparable with a
     * transport's messages per second times the size.
     *
     * @return frames per second times the size
     */
    public double payloadBytesPerSecond() {
        return framesPerSecond * size;
    }

    /**
     * What running the program gave for one size: a result or why there is none.
     *
     * @param size the size
     * @param command the command as run, or null if it was not run
     * @param result the result, or null
     * @param skipped why there is no result, or null
     */
    public record Outcome(int size, String command, StreamFloor result, String skipped) {
    }

    /**
     * Where the stream floor comes from: a command given with {@code --stream-floor}, the program found next
     * to the repository, or nowhere (with the reason).
     *
     * @param command the command (run with SIZE SECONDS appended), or null
     * @param absent why there is none, or null
     */
    public record Source(String command, String absent) {
        /**
         * Finds the source.
         *
         * @param given the command given on the command line, or null
         * @param disabled whether the floor was turned off
         * @return the source
         */
        public static Source of(final String given, final boolean disabled) {
            if (disabled) {
                return new Source(null, "not run (--no-stream-floor)");
            }
            if (given != null) {
                return new Source(given, null);
            }
            final Path program = FloorRunner.findScript(PROGRAM);
            return program == null
                ? new Source(null, "no ../shared/floor/" + PROGRAM + " next to the repository (--stream-floor CMD gives one)")
                : new Source("'" + program.toString().replace("'", "'\\''") + "'", null);
        }

        /**
         * Runs the floor for one size, or says why not.
         *
         * @param size the message size
         * @param seconds the measured seconds
         * @return the outcome; never throws
         */
        public Outcome run(final int size, final double seconds) {
            if (command == null) {
                return new Outcome(size, null, null, absent);
            }
            final String full = command + " " + size + " " + String.format(Locale.ROOT, "%.3f", seconds);
            // the program streams 64 MiB before its window starts; a busy machine may need much longer
            final FloorRunner.Output output = FloorRunner.capture(full, (long)Math.ceil(seconds) + 120);
            if (output.error() != null) {
                return new Outcome(size, full, null, output.error());
            }
            if (output.exitCode() != 0) {
                return new Outcome(size, full, null, "exit code " + output.exitCode() + ": " + output.tail());
            }
            try {
                return new Outcome(size, full, parse(output.text(), size), null);
            } catch (final IllegalArgumentException ex) {
                return new Outcome(size, full, null, ex.getMessage());
            }
        }
    }
}
