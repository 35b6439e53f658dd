package dev.peregrine.reactor;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The default error handler prints each distinct error once, and its repeats as a line a second at most. */
class StandardErrorHandlerTest {
    private static final long MILLISECOND = 1_000_000L;
    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private long nowNs = 5_000_000_000L;
    private final StandardErrorHandler handler = new StandardErrorHandler(() -> nowNs,
        new PrintStream(printed, true, StandardCharsets.UTF_8));

    @Test
    void shouldBeTheDefaultOfReactorOptions() {
        assertThat(ErrorHandler.STANDARD_ERROR).isInstanceOf(StandardErrorHandler.class);
    }

    @Test
    void shouldPrintOneStackTraceAndAtMostOneLineASecondForTenThousandIdenticalErrors() {
        for (int i = 0; i < 10_000; i++) {
            handler.onError(new IllegalStateException("socket failed"));
            nowNs += MILLISECOND;
        }

        final List<String> lines = lines();
        assertThat(lines.stream().filter(line -> line.equals("java.lang.IllegalStateException: socket failed")))
            .as("one stack trace").hasSize(1);
        assertThat(lines.getFirst()).isEqualTo("java.lang.IllegalStateException: socket failed");
        assertThat(lines.get(1)).startsWith("\tat dev.peregrine.reactor.StandardErrorHandlerTest.");
        assertThat(lines.stream().filter(line -> line.startsWith("..."))).as("10 s of repeats, a line a second")
            .containsExactlyElementsOf(java.util.Collections.nCopies(9,
                "... repeated 1000 times in the last 1.0 s: java.lang.IllegalStateException: socket failed"));
        assertThat(lines.stream().filter(line -> !line.startsWith("\tat ") && !line.startsWith("..."))).hasSize(1);
    }

    @Test
    void shouldPrintTheStackTraceOfEachDistinctErrorAndCountTheirRepeatsApart() {
        for (int i = 0; i < 3; i++) {
            handler.onError(socketFailed());
            handler.onError(malformedPacket(i));
        }
        nowNs += 1_500 * MILLISECOND;
        handler.onError(malformedPacket(99));
        handler.onError(socketFailed());

        final List<String> lines = lines();
        assertThat(lines.stream().filter(line -> !line.startsWith("\tat "))).containsExactly(
            "java.lang.IllegalStateException: socket failed",
            "java.lang.IllegalArgumentException: malformed packet of sequence 0",
            "... repeated 3 times in the last 1.5 s: java.lang.IllegalArgumentException: malformed packet of sequence 99",
            "... repeated 3 times in the last 1.5 s: java.lang.IllegalStateException: socket failed");
    }

    @Test
    void shouldTellErrorsOfOneClassApartByWhereTheyWereThrownAndByTheirRootCause() {
        handler.onError(socketFailed());
        handler.onError(new IllegalStateException("socket failed")); // another place
        handler.onError(wrapped(badLength()));
        handler.onError(wrapped(new java.io.UncheckedIOException(new java.io.IOException("reset"))));
        handler.onError(wrapped(badLength())); // the same as two lines up: counted only

        assertThat(lines().stream().filter(line -> !line.startsWith("\tat ") && !line.startsWith("\t..."))).containsExactly(
            "java.lang.IllegalStateException: socket failed",
            "java.lang.IllegalStateException: socket failed",
            "java.lang.IllegalStateException: handler failed",
            "Caused by: java.lang.IllegalArgumentException: bad length",
            "java.lang.IllegalStateException: handler failed",
            "Caused by: java.io.UncheckedIOException: java.io.IOException: reset",
            "Caused by: java.io.IOException: reset");
    }

    @Test
    void shouldRememberABoundedNumberOfDistinctErrorsAndPrintAForgottenOneWholeAgain() {
        for (int i = 0; i <= StandardErrorHandler.MAX_DISTINCT; i++) {
            handler.onError(new Traceless("peer " + i));
        }
        handler.onError(new Traceless("peer " + StandardErrorHandler.MAX_DISTINCT)); // remembered: counted only
        handler.onError(new Traceless("peer 0")); // forgotten for the 65th: printed again

        final List<String> lines = lines();
        assertThat(lines).hasSize(StandardErrorHandler.MAX_DISTINCT + 2);
        assertThat(lines.getFirst()).endsWith("Traceless: peer 0");
        assertThat(lines.getLast()).endsWith("Traceless: peer 0");
    }

    private List<String> lines() {
        return printed.toString(StandardCharsets.UTF_8).lines().toList();
    }

    private static IllegalStateException socketFailed() {
        return new IllegalStateException("socket failed");
    }

    private static IllegalArgumentException malformedPacket(final long sequence) {
        return new IllegalArgumentException("malformed packet of sequence " + sequence);
    }

    private static IllegalArgumentException badLength() {
        return new IllegalArgumentException("bad length");
    }

    private static IllegalStateException wrapped(final Throwable cause) {
        return new IllegalStateException("handler failed", cause);
    }

    /** An error without a stack trace: told apart by its message. */
    private static final class Traceless extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Traceless(final String message) {
            super(message, null, false, false);
        }
    }
}
