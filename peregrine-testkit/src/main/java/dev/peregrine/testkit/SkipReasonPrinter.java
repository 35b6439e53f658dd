package dev.peregrine.testkit;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

import java.util.Optional;

/**
 * Prints every skipped or aborted test with its reason on standard output, so that a test that cannot run
 * on a machine says why in the build's own output, not only in a report file. Registered for every test
 * through JUnit's extension auto-detection (see the surefire configuration in the parent pom).
 */
public final class SkipReasonPrinter implements TestWatcher {
    /** Creates the extension; JUnit does this. */
    public SkipReasonPrinter() {
    }

    @Override
    public void testAborted(final ExtensionContext context, final Throwable cause) {
        System.out.println("SKIPPED " + context.getDisplayName() + " in " + context.getRequiredTestClass().getSimpleName()
            + ": " + cause.getMessage());
    }

    @Override
    public void testDisabled(final ExtensionContext context, final Optional<String> reason) {
        System.out.println("SKIPPED " + context.getDisplayName() + " in " + context.getRequiredTestClass().getSimpleName()
            + ": " + reason.orElse("disabled"));
    }
}
