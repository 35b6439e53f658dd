package dev.peregrine.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The machine a run measured: CPU model, cores, kernel, JDK and memory, from {@code /proc} and system
 * properties. Anything that cannot be read is "unknown".
 */
public final class MachineInfo {
    private MachineInfo() {
    }

    /**
     * Describes this machine.
     *
     * @return labelled values in display order
     */
    public static Map<String, String> describe() {
        final Map<String, String> info = new LinkedHashMap<>();
        info.put("CPU", cpuModel());
        info.put("Cores (available to the JVM)", Integer.toString(Runtime.getRuntime().availableProcessors()));
        info.put("Kernel", System.getProperty("os.name") + " " + System.getProperty("os.version")
            + " " + System.getProperty("os.arch"));
        info.put("JDK", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
            + " (" + System.getProperty("java.vendor") + ")");
        info.put("Memory", memory());
        info.put("Max heap", Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB");
        return info;
    }

    private static String cpuModel() {
        for (final String line : lines(Path.of("/proc/cpuinfo"))) {
            if (line.startsWith("model name")) {
                final int colon = line.indexOf(':');
                return colon < 0 ? line : line.substring(colon + 1).trim();
            }
        }
        return "unknown";
    }

    private static String memory() {
        for (final String line : lines(Path.of("/proc/meminfo"))) {
            if (line.startsWith("MemTotal:")) {
                final String[] parts = line.trim().split("\\s+");
                try {
                    return Long.parseLong(parts[1]) / 1024 + " MiB";
                } catch (final NumberFormatException | ArrayIndexOutOfBoundsException ex) {
                    return line;
                }
            }
        }
        return "unknown";
    }

    private static List<String> lines(final Path file) {
        try {
            return Files.readAllLines(file);
        } catch (final IOException | RuntimeException ex) {
            return List.of();
        }
    }
}
