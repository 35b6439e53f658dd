package dev.peregrine.bench.fanout;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Sends a signal to a process with {@code kill(2)} through the FFM API: no process is started to do it, so the
 * writer's JVM does not fork {@code /bin/kill} in the middle of a measured run (the detached reference run forks
 * nothing there). Where the call is unavailable, {@code /bin/kill} is started instead and the run's notes say so.
 *
 * <p>Threading: any thread.
 */
@SuppressWarnings("restricted") // a native call is this class's purpose; the launcher enables native access
final class ProcessSignals {
    /** {@code SIGCONT} on Linux x86_64 and aarch64. */
    static final int SIGCONT = 18;
    /** {@code SIGSTOP} on Linux x86_64 and aarch64. */
    static final int SIGSTOP = 19;
    private static final MethodHandle KILL;
    private static final String UNAVAILABLE;

    static {
        final String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        final String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        MethodHandle kill = null;
        String unavailable = null;
        if (!os.contains("linux")) {
            unavailable = "kill through FFM is Linux only here";
        } else if (!"amd64".equals(arch) && !"x86_64".equals(arch) && !"aarch64".equals(arch)
            && !"arm64".equals(arch)) {
            unavailable = "signal numbers are not known for os.arch=" + arch;
        } else {
            try {
                final Linker linker = Linker.nativeLinker();
                final Optional<MemorySegment> symbol = linker.defaultLookup().find("kill");
                if (symbol.isPresent()) {
                    kill = linker.downcallHandle(symbol.get(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
                } else {
                    unavailable = "kill(2) is not in the C library";
                }
            } catch (final RuntimeException ex) {
                unavailable = "FFM downcalls unavailable (run with --enable-native-access): " + ex.getMessage();
            }
        }
        KILL = kill;
        UNAVAILABLE = unavailable;
    }

    private ProcessSignals() {
    }

    /**
     * Why the signal is sent by starting {@code /bin/kill}.
     *
     * @return null if {@code kill(2)} is called directly, otherwise the reason
     */
    static String unavailableReason() {
        return UNAVAILABLE;
    }

    /**
     * Sends a signal.
     *
     * @param pid the process
     * @param signal {@link #SIGSTOP} or {@link #SIGCONT}
     * @throws IOException if it could not be sent
     * @throws InterruptedException if interrupted while {@code /bin/kill} ran
     */
    static void send(final long pid, final int signal) throws IOException, InterruptedException {
        if (signal != SIGSTOP && signal != SIGCONT) {
            throw new IllegalArgumentException("signal=" + signal + " must be SIGSTOP (19) or SIGCONT (18)");
        }
        if (KILL != null) {
            final int result;
            try {
                result = (int)KILL.invokeExact((int)pid, signal);
            } catch (final Throwable ex) {
                throw new IOException("kill(" + pid + ", " + signal + ") failed", ex);
            }
            if (result != 0) {
                throw new IOException("kill(" + pid + ", " + signal + ") failed: the process is gone or not ours");
            }
            return;
        }
        final Process kill = new ProcessBuilder("kill", signal == SIGSTOP ? "-STOP" : "-CONT", Long.toString(pid))
            .start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IOException("kill " + (signal == SIGSTOP ? "-STOP " : "-CONT ") + pid + " failed");
        }
    }
}
