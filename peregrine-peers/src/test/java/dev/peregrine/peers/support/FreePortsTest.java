package dev.peregrine.peers.support;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A run's fixed ports stay out of the kernel's ephemeral range, so no socket bound to port 0 (a client's, or
 * anything else's on the host) can take one between the probe and the responder's bind.
 */
class FreePortsTest {
    @Test
    void shouldTakeEveryBlockOutsideTheEphemeralRangeOfThisHost() {
        final int[] ephemeral = FreePorts.ephemeralRange();
        final int count = 40; // bench load's five clients

        for (int run = 0; run < 200; run++) {
            final int first = FreePorts.block("127.0.0.1", count);

            assertThat(first + count - 1 < ephemeral[0] || first > ephemeral[1])
                .as("ports %d..%d against the ephemeral range %d..%d", first, first + count - 1, ephemeral[0],
                    ephemeral[1])
                .isTrue();
        }
    }

    /**
     * The range read is the kernel's, as {@code cat} prints it: read the way {@code Files.readString} reads, a
     * sysctl file gave "3" and the IANA fallback, whose stretch below 49152 holds most of Linux's range.
     */
    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldReadTheKernelsEphemeralRangeOnLinux() throws Exception {
        final Process cat = new ProcessBuilder("cat", "/proc/sys/net/ipv4/ip_local_port_range").start();
        final String[] fields = new String(cat.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim()
            .split("\\s+");
        assertThat(cat.waitFor()).isZero();

        assertThat(FreePorts.ephemeralRange())
            .containsExactly(Integer.parseInt(fields[0]), Integer.parseInt(fields[1]));
    }

    @Test
    void shouldPreferTheWiderStretchOutsideTheEphemeralRange() {
        assertThat(FreePorts.portRange(new int[] {32_768, 60_999}, 8)).containsExactly(20_000, 32_760);
        assertThat(FreePorts.portRange(new int[] {20_000, 40_000}, 8)).containsExactly(40_001, 65_528);
        assertThat(FreePorts.portRange(new int[] {49_152, 65_535}, 8)).containsExactly(20_000, 49_144);
    }

    @Test
    void shouldFallBackToTheWholeRangeWhenTheEphemeralRangeLeavesNoRoom() {
        assertThat(FreePorts.portRange(new int[] {1_024, 65_535}, 8)).containsExactly(20_000, 65_528);
    }
}
