package dev.peregrine.mold;

import dev.peregrine.testkit.Needs;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Separate hosts for real: four network namespaces (a bridge, a publisher, two listeners) joined by veth
 * pairs; the publisher multicasts across the bridge with 10% of its packets dropped, and each listener,
 * a JVM of its own in its own namespace, recovers from the publisher's re-request server.
 */
@Tag("slow")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class MoldUDP64NetnsTest {
    private static final long MESSAGES = 20_000;
    private final String id = Integer.toString(ThreadLocalRandom.current().nextInt(0x10000, 0xFFFFF), 36);
    private final List<String> namespaces = new ArrayList<>();

    private static Process start(final List<String> command) throws IOException {
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    private static String run(final String... command) throws IOException, InterruptedException {
        final Process process = start(List.of(command));
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + output.strip());
        }
        return output;
    }

    private String ns(final String role) {
        return "pg" + role + id;
    }

    private void netns(final String namespace, final String... command) throws IOException, InterruptedException {
        final List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
        full.addAll(List.of(command));
        run(full.toArray(String[]::new));
    }

    private List<String> java(final String namespace, final String... args) {
        final List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", namespace,
            ProcessHandle.current().info().command().orElse("java"), "--enable-native-access=ALL-UNNAMED",
            "-XX:AutoBoxCacheMax=65536", "-Xmx256m",
            "-cp", System.getProperty("java.class.path"), MoldNetnsNode.class.getName()));
        command.addAll(List.of(args));
        return command;
    }

    @Test
    void shouldRecoverEveryMessageAcrossHostsOverMulticast() throws Exception {
        try {
            run("ip", "netns", "add", ns("B"));
            namespaces.add(ns("B"));
        } catch (final IOException ex) {
            Needs.installable("iproute2", () -> ex.getMessage().contains("Cannot run program") ? ex.getMessage() : null);
            Needs.privilege("root", false, "network namespaces cannot be created here: " + ex.getMessage());
        }
        final List<Process> processes = new ArrayList<>();
        try {
            netns(ns("B"), "ip", "link", "add", "br0", "type", "bridge", "mcast_snooping", "0");
            netns(ns("B"), "ip", "link", "set", "br0", "up");
            final String[] roles = {"P", "A", "C"};
            for (int i = 0; i < roles.length; i++) {
                final String namespace = ns(roles[i]);
                run("ip", "netns", "add", namespace);
                namespaces.add(namespace);
                run("ip", "link", "add", "eth0", "netns", namespace, "type", "veth", "peer", "name", "p" + roles[i], "netns", ns("B"));
                netns(namespace, "ip", "addr", "add", "10.77.0." + (i + 1) + "/24", "dev", "eth0");
                netns(namespace, "ip", "link", "set", "eth0", "up");
                netns(namespace, "ip", "link", "set", "lo", "up");
                netns(namespace, "ip", "route", "add", "224.0.0.0/4", "dev", "eth0");
                netns(ns("B"), "ip", "link", "set", "p" + roles[i], "master", "br0");
                netns(ns("B"), "ip", "link", "set", "p" + roles[i], "up");
            }
            final List<BufferedReader> outputs = new ArrayList<>();
            for (final String role : new String[] {"A", "C"}) {
                final Process listener = start(java(ns(role), "listen", "eth0", "239.77.1.1", "5000", "10.77.0.1", Long.toString(MESSAGES)));
                processes.add(listener);
                final BufferedReader output = new BufferedReader(new InputStreamReader(listener.getInputStream(), StandardCharsets.UTF_8));
                outputs.add(output);
                assertThat(output.readLine()).isEqualTo("ready");
            }
            final Process publisher = start(java(ns("P"), "publish", "eth0", "239.77.1.1", "5000", Long.toString(MESSAGES)));
            processes.add(publisher);

            final List<String> results = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                String line;
                while ((line = outputs.get(i).readLine()) != null && !line.startsWith("RESULT")) {
                    results.add("listener said: " + line);
                }
                results.add(line);
                assertThat(processes.get(i).waitFor(60, TimeUnit.SECONDS)).isTrue();
                assertThat(processes.get(i).exitValue()).as("listener %d: %s", i, results).isZero();
            }
            publisher.getOutputStream().write('\n');
            publisher.getOutputStream().flush();
            assertThat(publisher.waitFor(30, TimeUnit.SECONDS)).isTrue();
            System.out.println(results + " " + new String(publisher.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip());
            assertThat(results).filteredOn(line -> line != null && line.startsWith("RESULT"))
                .hasSize(2).allMatch(line -> line.contains("delivered=" + MESSAGES + " errors=0 state=END_OF_SESSION"));
        } finally {
            for (final Process process : processes) {
                process.destroyForcibly();
            }
            for (final String namespace : namespaces) {
                try {
                    run("ip", "netns", "del", namespace);
                } catch (final IOException ex) {
                    System.err.println("cleanup: " + ex.getMessage());
                }
            }
        }
    }
}
