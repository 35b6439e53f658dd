package dev.peregrine.testkit.naming;

import org.junit.jupiter.api.RepeatedTest;

/** Misnamed: a repeated test in a class whose name does not end in Test. */
class MisnamedRepeated {
    @RepeatedTest(2)
    void shouldNeverRun() {
    }
}
