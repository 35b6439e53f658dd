package dev.peregrine.cli;

import dev.peregrine.testkit.TestClassNames;
import org.junit.jupiter.api.Test;

/** Every test class of this module runs: none has test methods under a name surefire skips (see the parent pom). */
class TestClassNamingTest {
    @Test
    void shouldRunEveryTestClassOfThisModule() {
        TestClassNames.assertEveryTestClassRuns(TestClassNamingTest.class);
    }
}
