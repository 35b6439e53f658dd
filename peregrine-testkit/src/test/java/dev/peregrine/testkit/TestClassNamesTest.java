package dev.peregrine.testkit;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The guard behind every module's TestClassNamingTest finds exactly the classes surefire would skip. */
class TestClassNamesTest {
    private static final String FIXTURES = "dev.peregrine.testkit.naming.";

    @Test
    void shouldFindEveryClassWithTestMethodsThatSurefireWouldSkip() {
        final Path directory = TestClassNames.testClassesDirectory(TestClassNamesTest.class);

        final List<String> skipped = TestClassNames.classesSurefireWouldSkip(directory,
            TestClassNamesTest.class.getClassLoader(), Set.of());

        assertThat(skipped).containsExactly(FIXTURES + "InheritedChecks", FIXTURES + "MisnamedParameterizedTests",
            FIXTURES + "MisnamedRepeated", FIXTURES + "WellNamedTest$StaticNested");
    }

    @Test
    void shouldFailNamingTheClassesThatWouldNotRun() {
        assertThatThrownBy(() -> TestClassNames.assertEveryTestClassRuns(TestClassNamesTest.class))
            .isInstanceOf(AssertionError.class)
            .hasMessageContaining(FIXTURES + "MisnamedRepeated")
            .hasMessageContaining("rename each to end in Test");
    }
}
