package dev.peregrine;

import dev.peregrine.testkit.TestClassNames;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No class of the library's own sources is over {@value #MAX_LINES} lines (lines of the file, as {@code wc -l}
 * counts them): past that a class does more than one role, and is split by role (issue 35), as
 * {@code MoldUDP64Gaps}, {@code TcpFrameSender} and {@code TcpClaim} were.
 */
class ClassSizeTest {
    static final int MAX_LINES = 700;

    @Test
    void shouldKeepEveryMainSourceFileOfTheCoreWithinTheLimit() throws IOException {
        final Path sources = mainSources();
        final List<Path> files = javaFiles(sources);
        // the tree is found, and whole: an empty walk would pass whatever the classes' sizes
        assertThat(files).as("java files under %s", sources).hasSizeGreaterThan(100)
            .anyMatch(f -> f.endsWith(Path.of("dev/peregrine/tcp/TcpTransport.java")));
        assertThat(oversized(files)).as("src/main files over %d lines: split each by role", MAX_LINES).isEmpty();
    }

    @Test
    void shouldNameAFileOneLineOverTheLimit(@TempDir final Path dir) throws IOException {
        final Path atLimit = Files.writeString(dir.resolve("AtLimit.java"), "x\n".repeat(MAX_LINES));
        final Path over = Files.writeString(dir.resolve("Over.java"), "x\n".repeat(MAX_LINES) + "}");
        assertThat(oversized(List.of(atLimit, over))).containsExactly(over + " has " + (MAX_LINES + 1) + " lines");
    }

    private static List<String> oversized(final List<Path> files) throws IOException {
        final List<String> over = new ArrayList<>();
        for (final Path file : files) {
            final long lines;
            try (Stream<String> text = Files.lines(file)) {
                lines = text.count();
            }
            if (lines > MAX_LINES) {
                over.add(file + " has " + lines + " lines");
            }
        }
        return over;
    }

    private static List<Path> javaFiles(final Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(f -> f.toString().endsWith(".java")).sorted().toList();
        }
    }

    /** The module's {@code src/main/java}, found from its compiled tests ({@code target/test-classes}). */
    private static Path mainSources() {
        final Path testClasses = TestClassNames.testClassesDirectory(ClassSizeTest.class);
        return testClasses.getParent().getParent().resolve("src/main/java");
    }
}
