package dev.peregrine.bench.fanout;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a run's measured windows must not do for the first time is done when the writer's loop class and the reader
 * child's class are initialised, before any window: the writer's loop loaded {@code Sent} and
 * {@code FanoutScenarioThread} at its first compile, inside the window (23 KB from the jar, the writer's B/msg in
 * the first run of a JVM: JFR), and both sides initialised the meter (the JDK's thread MXBean, some 250 KB and
 * milliseconds) at their first measured message; the reader's compiled loop loaded {@code FanoutReaderChild.Result}
 * at its first exit, before the window's last meter reading (14 KB, bcast9). Each class in a fresh JVM, its class loading and initialisation
 * logged ({@code -Xlog:class+load,class+init}).
 */
@Tag("slow")
class FanoutPreloadTest {
    private static final String METER = "Initializing 'dev/peregrine/bench/run/ThreadAllocation'";

    @Test
    void shouldLoadWhatTheWritersLoopNamesAndInitialiseTheMeterWithTheLoopsClass() throws Exception {
        final List<String> log = logUntilInitialised(FanoutSender.class.getName());

        assertThat(log).as("class log up to FanoutSender's initialisation")
            .anyMatch(line -> line.contains("[class,load] " + FanoutSender.Sent.class.getName() + " "))
            .anyMatch(line -> line.contains("[class,load] " + FanoutScenarioThread.class.getName() + " "))
            .anyMatch(line -> line.contains(METER));
    }

    @Test
    void shouldInitialiseTheMeterWithTheReaderChildsClass() throws Exception {
        final List<String> log = logUntilInitialised(FanoutReaderChild.class.getName());

        assertThat(log).as("class log up to FanoutReaderChild's initialisation").anyMatch(line -> line.contains(METER))
            .anyMatch(line -> line.contains("[class,load] " + FanoutReaderChild.Result.class.getName() + " "));
    }

    private static List<String> logUntilInitialised(final String className) throws Exception {
        final List<String> command = List.of(ProcessHandle.current().info().command().orElseThrow(),
            "--enable-native-access=ALL-UNNAMED", "-Xmx64m", "-Xlog:class+load=info,class+init=info:stdout", "-cp",
            System.getProperty("java.class.path"), FanoutPreloadProcess.class.getName(), className);
        final Process child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        final List<String> lines = new ArrayList<>();
        boolean initialised = false;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
            StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.equals("INITIALISED")) {
                    initialised = true;
                } else if (!initialised && line.contains("peregrine")) {
                    lines.add(line); // the JDK's own classes left out, so that a failure lists what matters
                }
            }
        }
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).isZero();
        assertThat(initialised).as("the child initialised " + className).isTrue();
        return lines;
    }
}
