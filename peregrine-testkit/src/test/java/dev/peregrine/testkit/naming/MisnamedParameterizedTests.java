package dev.peregrine.testkit.naming;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Misnamed: ends in Tests, which surefire's default includes take but the parent pom's do not. */
class MisnamedParameterizedTests {
    @ParameterizedTest
    @ValueSource(ints = 1)
    void shouldNeverRun(final int value) {
    }
}
