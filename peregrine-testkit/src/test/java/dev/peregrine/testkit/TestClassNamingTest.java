package dev.peregrine.testkit;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every test class of this module runs: none has test methods under a name surefire skips. The deliberately
 * misnamed fixtures of {@link TestClassNamesTest} are the exception, and only they.
 */
class TestClassNamingTest {
    @Test
    void shouldRunEveryTestClassOfThisModule() {
        final List<String> skipped = TestClassNames.classesSurefireWouldSkip(
            TestClassNames.testClassesDirectory(TestClassNamingTest.class), TestClassNamingTest.class.getClassLoader(),
            Set.of());

        assertThat(skipped).allMatch(name -> name.startsWith("dev.peregrine.testkit.naming."));
    }
}
