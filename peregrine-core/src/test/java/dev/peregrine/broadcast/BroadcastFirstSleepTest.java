package dev.peregrine.broadcast;

import dev.peregrine.testkit.ChildJvm;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A futex reader's first sleeps allocate nothing, in C1 code and with the default JIT. A bench latency reader that
 * kept up through its warm-up without ever sleeping (a steady stream on a quiet machine: the yields carry it over the
 * gaps) took its first sleep inside the measured stream, where the JDK linked the sleep's atomic accesses (their
 * VarHandle call sites, at first execution: method types, member names) and loaded the wait switch's class, some KB
 * (JFR, bcast9). Each try is a fresh JVM, as both happen once per JVM; up to 3 tries until one is clean (a JIT
 * one-off on a loaded machine). With the default JIT, C2's first compiles of the read and wait path resolve their
 * String literals inside the rounds (1.2-1.7 KB here, JFR: String and byte[] pairs at bci -1, the one-off bcast6 and
 * bcast7 left), so that run is held under {@link #JIT_ONE_OFF_BYTES}; the linking alone was some 7 KB.
 */
class BroadcastFirstSleepTest {
    private static final int ROUNDS = 200;
    /** Above the String literals C2's first compiles resolve in the rounds, below them plus the linking (8.4 KB). */
    private static final long JIT_ONE_OFF_BYTES = 4096;

    @TempDir
    Path temp;

    @Test
    @Tag("slow")
    void shouldAllocateNothingInAReadersFirstSleepsInCodeThatC2HasNotCompiled() throws Exception {
        assertThat(bytes("c1", "-XX:TieredStopAtLevel=1", 0)).isZero();
    }

    @Test
    @Tag("slow")
    void shouldAllocateNothingInAReadersFirstSleepsWithTheDefaultJit() throws Exception {
        assertThat(bytes("default", null, JIT_ONE_OFF_BYTES)).isLessThanOrEqualTo(JIT_ONE_OFF_BYTES);
    }

    private long bytes(final String name, final String jitOption, final long clean) throws Exception {
        long bytes = -1;
        for (int attempt = 1; attempt <= 3; attempt++) {
            final String line = firstSleeps(temp.resolve(name + attempt), jitOption);
            System.out.println(name + " try " + attempt + ": " + line);
            assertThat(line).as("a reader's first " + ROUNDS + " waits, each a sleep woken by the writer (" + name + ")")
                .matches("BYTES [0-9]+ READ " + ROUNDS);
            bytes = Long.parseLong(line.split(" ")[1]);
            if (bytes <= clean) {
                break;
            }
        }
        return bytes;
    }

    private static String firstSleeps(final Path dir, final String jitOption) throws Exception {
        final List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-Xmx64m"));
        if (jitOption != null) {
            command.add(jitOption);
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"),
            BroadcastFirstSleepProcess.class.getName(), dir.toString(), Integer.toString(ROUNDS)));
        return ChildJvm.firstLine(command);
    }
}
