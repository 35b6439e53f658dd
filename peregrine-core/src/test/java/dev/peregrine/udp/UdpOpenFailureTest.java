package dev.peregrine.udp;

import dev.peregrine.testkit.Needs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A native endpoint whose buffers cannot be made ({@link OutOfMemoryError}: direct memory is short) leaves no
 * socket open: the socket is made before them, and a raw descriptor has no cleaner, so nothing would ever close it
 * (a DatagramChannel's has one). A child JVM with a direct-memory limit smaller than the two
 * buffers of an endpoint does the opening.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UdpOpenFailureTest {
    @Test
    void shouldCloseTheNativeSocketWhenTheEndpointsBuffersCannotBeMade() throws Exception {
        Needs.platform("the native UDP socket", UdpEndpoint::nativeSocketUnavailableReason);
        final Process child = new ProcessBuilder(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-XX:MaxDirectMemorySize=100000", // one 64 KiB buffer, not two
            "--enable-native-access=ALL-UNNAMED", "-XX:AutoBoxCacheMax=65536",
            "-cp", System.getProperty("java.class.path"),
            UdpOpenOutOfDirectMemory.class.getName())).redirectErrorStream(true).start();
        child.getOutputStream().close();
        final String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor()).as(output).isZero();

        assertThat(output).as("each open failed for want of direct memory, and none kept its socket")
            .contains("failures=3 leaked=0");
    }
}
