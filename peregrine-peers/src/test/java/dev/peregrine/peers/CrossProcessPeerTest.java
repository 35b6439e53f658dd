package dev.peregrine.peers;

import dev.peregrine.peers.aeron.AeronIpcBenchTransport;
import dev.peregrine.peers.aeron.AeronUdpBenchTransport;
import dev.peregrine.peers.netty.NettyBenchTransport;
import dev.peregrine.peers.nio.NioBenchTransport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The responder in a child JVM started with exactly the transport's {@link BenchTransport#jvmArguments()}, the
 * client in this one, as the benchmark runs them; for Aeron this proves the client only connects to the
 * driver the responder embedded.
 */
@Tag("slow")
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CrossProcessPeerTest {
    private static final int ROUND_TRIPS = 1_000;

    @TempDir
    Path directory;

    static Stream<BenchTransport> transports() {
        return Stream.of(new AeronIpcBenchTransport(), new AeronUdpBenchTransport(), new NettyBenchTransport(),
            new NioBenchTransport());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transports")
    void shouldEchoInOrderFromAResponderInAnotherProcess(final BenchTransport transport) throws Exception {
        final BenchConfig config = new BenchConfig("127.0.0.1", BenchTransportConformanceTest.freePort(), 128, directory,
            false);
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElseThrow());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("-XX:AutoBoxCacheMax=65536"); // as the launcher: SelectorBoxing
        command.addAll(transport.jvmArguments());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), PeerResponderProcess.class.getName(),
            transport.name(), Integer.toString(config.port()), Integer.toString(config.size()), directory.toString()));
        final Process child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            assertThat(out.readLine()).isEqualTo("READY");
            try (PingClient client = transport.connect(config)) {
                for (long sequence = 0; sequence < ROUND_TRIPS; sequence++) {
                    client.send(sequence);
                    assertThat(client.receive()).isEqualTo(sequence);
                }
            }
            child.getOutputStream().close();
            assertThat(out.readLine()).isEqualTo("ECHOED " + ROUND_TRIPS);
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(child.exitValue()).isZero();
        } finally {
            child.destroyForcibly();
        }
    }
}
