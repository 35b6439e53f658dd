package dev.peregrine.testkit.naming;

import org.junit.jupiter.api.Test;

/** Abstract: not run itself, so not reported; its concrete subclasses are. */
abstract class AbstractChecks {
    @Test
    void shouldRunInEverySubclass() {
    }
}
