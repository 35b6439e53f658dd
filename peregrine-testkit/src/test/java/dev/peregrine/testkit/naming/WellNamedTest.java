package dev.peregrine.testkit.naming;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Well named, with a @Nested inner class that JUnit runs through it, and a static nested class it does not. */
class WellNamedTest extends AbstractChecks {
    @Test
    void shouldRun() {
    }

    @Nested
    class Inner {
        @Test
        void shouldRunThroughTheOuterClass() {
        }
    }

    /** Misnamed in effect: surefire excludes nested classes and JUnit only runs @Nested inner ones. */
    static class StaticNested {
        @Test
        void shouldNeverRun() {
        }
    }

    /** No test methods: a helper, not reported. */
    static final class Helper {
    }
}
