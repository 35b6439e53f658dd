package dev.peregrine.testkit;

import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

import java.util.function.Supplier;

/**
 * What a test needs from the machine, and what happens when it is missing: the one skip policy of every module.
 *
 * <ul>
 *   <li>{@link #installable}: a program or package that {@code .ci/run} installs (Chromium, tshark, prlimit).
 *       Under {@code PEREGRINE_CI=1} its absence fails the test with the reason; elsewhere the test skips.</li>
 *   <li>{@link #platform}: something Linux gives every process (a futex, {@code sched_setaffinity}, IPv6 on
 *       loopback, the kernel dropping SYNs to a full accept queue). CI is Linux, so there its absence is a
 *       defect and fails the test; elsewhere the test skips.</li>
 *   <li>{@link #privilege}: something only root may do (a network namespace, a tmpfs mount). The test skips
 *       everywhere, saying "needs root", because CI may run unprivileged.</li>
 *   <li>{@link #configuration}: how this machine is set up, which no install changes (IPv6 on loopback, an
 *       interface that can multicast, a file only the development machine has). The test skips everywhere,
 *       saying which.</li>
 * </ul>
 *
 * <p>A skip is an aborted test: {@link SkipReasonPrinter} prints it with its reason on the console.
 */
public final class Needs {
    /** The environment variable {@code .ci/run} sets to {@code 1}. */
    public static final String CI_VARIABLE = "PEREGRINE_CI";

    private Needs() {
    }

    /**
     * Whether this JVM runs under CI.
     *
     * @return true when {@code PEREGRINE_CI=1}
     */
    public static boolean ci() {
        return "1".equals(System.getenv(CI_VARIABLE));
    }

    /**
     * Requires something {@code .ci/run} installs: fails under CI when it is missing, skips elsewhere.
     *
     * @param name what is needed, e.g. {@code "chromium"}
     * @param whyMissing null when it is present, otherwise why it is not
     */
    public static void installable(final String name, final Supplier<String> whyMissing) {
        check(Kind.INSTALLABLE, name, whyMissing.get(), ci());
    }

    /**
     * Requires something {@code .ci/run} installs: fails under CI when it is missing, skips elsewhere.
     *
     * @param name what is needed, e.g. {@code "chromium"}
     * @param present whether it is there
     * @param whyMissing the reason given when it is not
     */
    public static void installable(final String name, final boolean present, final String whyMissing) {
        check(Kind.INSTALLABLE, name, present ? null : whyMissing, ci());
    }

    /**
     * Requires something every Linux process has: fails under CI (Linux) when it is missing, skips elsewhere.
     *
     * @param name what is needed, e.g. {@code "futex"}
     * @param whyMissing null when it is present, otherwise why it is not
     */
    public static void platform(final String name, final Supplier<String> whyMissing) {
        check(Kind.PLATFORM, name, whyMissing.get(), ci());
    }

    /**
     * Requires something every Linux process has: fails under CI (Linux) when it is missing, skips elsewhere.
     *
     * @param name what is needed, e.g. {@code "IPv6 loopback"}
     * @param present whether it is there
     * @param whyMissing the reason given when it is not
     */
    public static void platform(final String name, final boolean present, final String whyMissing) {
        check(Kind.PLATFORM, name, present ? null : whyMissing, ci());
    }

    /**
     * Requires a privilege, such as root: skips everywhere when it is not held, CI included.
     *
     * @param name the privilege, e.g. {@code "root"}
     * @param held whether this process holds it
     * @param whyMissing what could not be done without it
     */
    public static void privilege(final String name, final boolean held, final String whyMissing) {
        check(Kind.PRIVILEGE, name, held ? null : whyMissing, ci());
    }

    /**
     * Requires a machine set up a certain way: skips everywhere, CI included, when it is not.
     *
     * @param name what is needed, e.g. {@code "IPv6 loopback"}
     * @param present whether it is there
     * @param whyMissing the reason given when it is not
     */
    public static void configuration(final String name, final boolean present, final String whyMissing) {
        check(Kind.CONFIGURATION, name, present ? null : whyMissing, ci());
    }

    /**
     * The policy itself, with the CI flag passed in so that it can be tested both ways.
     *
     * @param kind what sort of need
     * @param name what is needed
     * @param whyMissing null when present
     * @param ci whether this is a CI run
     */
    static void check(final Kind kind, final String name, final String whyMissing, final boolean ci) {
        if (whyMissing == null) {
            return;
        }
        final String reason = "needs " + name + ": " + whyMissing;
        if (ci && (kind == Kind.INSTALLABLE || kind == Kind.PLATFORM)) {
            throw new AssertionFailedError(CI_VARIABLE + "=1 and this test " + reason
                + (kind == Kind.INSTALLABLE ? " (.ci/run installs it; see its output)" : " (CI runs on Linux)"));
        }
        throw new TestAbortedException(reason);
    }

    /** The sorts of need, each with its own answer under CI. */
    enum Kind {
        /** Installed by {@code .ci/run}: fails under CI. */
        INSTALLABLE,
        /** Given by Linux: fails under CI. */
        PLATFORM,
        /** Held by root only: skips everywhere. */
        PRIVILEGE,
        /** Set up by whoever runs the machine: skips everywhere. */
        CONFIGURATION
    }
}
