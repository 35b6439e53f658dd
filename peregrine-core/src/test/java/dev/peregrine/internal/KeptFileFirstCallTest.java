package dev.peregrine.internal;

import dev.peregrine.testkit.ChildJvm;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A kept file's checks ({@link KeptFile#lockState()} held and free, {@link KeptFile#size()}) allocate nothing from the
 * first call of a JVM on, through and past the 128th, in code C2 has not compiled: a broadcast reader's idle check of
 * its writer (every 50 ms) and a writer's probe of a stalled reader (every 10 ms) stay there for minutes. The JDK
 * links a downcall at its first call and customises its method handle at its 128th in such code (some 20-60 KB each);
 * a bench reader's 128th {@code fstat}, some 3 s into a run, allocated there (JFR). Each try is a fresh JVM stopped at
 * C1, since both happen once per JVM; tries are repeated until one is clean (a JIT one-off on a loaded machine), at
 * most 3.
 */
class KeptFileFirstCallTest {
    /** Past the JDK's customisation threshold (127 calls of a handle) with room to spare: 3 calls of each a repeat. */
    private static final int REPEATS = 400;

    @TempDir
    Path temp;

    @Test
    @Tag("slow")
    void shouldAllocateNothingFromTheFirstCheckOfAJvmOnInCodeThatC2HasNotCompiled() throws Exception {
        String line = null;
        for (int attempt = 1; attempt <= 3; attempt++) {
            line = inAFreshJvm(temp.resolve("try" + attempt));
            System.out.println("try " + attempt + ": " + line);
            if (!line.startsWith("BYTES ") || line.equals("BYTES 0 REPEATED 0 ANSWERS ok")) {
                break;
            }
        }
        assertThat(line).as("the first lock probes (held, free) and size of a JVM, then " + REPEATS + " more each")
            .isEqualTo("BYTES 0 REPEATED 0 ANSWERS ok");
    }

    private static String inAFreshJvm(final Path dir) throws Exception {
        final List<String> command = List.of(ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-Xmx64m", "-XX:TieredStopAtLevel=1", "-cp",
            System.getProperty("java.class.path"), KeptFileFirstCallProcess.class.getName(), dir.toString(),
            Integer.toString(REPEATS));
        return ChildJvm.firstLine(command);
    }
}
