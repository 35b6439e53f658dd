package dev.peregrine.shm;

import dev.peregrine.testkit.ChildJvm;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The first futex sleep and the first wake-up of a JVM allocate nothing: both downcalls are linked when the futex
 * class is loaded; nor does any later one in code C2 has not compiled. A bench reader's first sleep in the middle of a run allocated some 50 KB there (JFR). Each try is
 * a fresh JVM, since linking happens once per JVM; tries are repeated until one is clean (a JIT one-off on a loaded
 * machine), at most 3.
 */
class ShmFutexFirstCallTest {
    @Test
    @Tag("slow")
    void shouldAllocateNothingAtTheFirstSleepAndWakeOfAJvm() throws Exception {
        String line = null;
        for (int attempt = 1; attempt <= 3; attempt++) {
            line = inAFreshJvm("-Xmx64m", "0");
            System.out.println("try " + attempt + ": " + line);
            if (!line.startsWith("BYTES ") || line.equals("BYTES 0 REPEATED 0")) {
                break;
            }
        }
        assertThat(line).as("the first FUTEX_WAIT and FUTEX_WAKE of a JVM").isEqualTo("BYTES 0 REPEATED 0");
    }

    /**
     * A reader sleeps rarely enough (a stall, a slow stream) that its sleep stays in C1 code for minutes, and C1 has no
     * escape analysis: a call allocating an object that C2 removes would allocate at every sleep there. Run in a JVM
     * that stops at C1, 2 000 waits and wakes on a word in a shared arena (as a log's mapping) allocate nothing.
     */
    @Test
    @Tag("slow")
    void shouldAllocateNothingPerSleepAndWakeInCodeThatC2HasNotCompiled() throws Exception {
        final String line = inAFreshJvm("-XX:TieredStopAtLevel=1", "2000");

        assertThat(line).as("2 000 FUTEX_WAIT and FUTEX_WAKE in C1 code").endsWith(" REPEATED 0");
    }

    private static String inAFreshJvm(final String option, final String repeat) throws Exception {
        final List<String> command = List.of(ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-Xmx64m", option, "-cp", System.getProperty("java.class.path"),
            ShmFutexFirstCallProcess.class.getName(), repeat);
        return ChildJvm.firstLine(command);
    }
}
