package dev.peregrine.peers;

import dev.peregrine.peers.netty.NettyBenchTransport;
import org.junit.jupiter.api.Tag;

/**
 * Netty with its event-loop threads; tagged slow (several seconds per test on a shared two-core machine).
 */
@Tag("slow")
class NettyBenchTransportTest extends BenchTransportConformanceTest {
    @Override
    BenchTransport transport() {
        return new NettyBenchTransport();
    }

    /** Netty's GlobalEventExecutor serves every promise of the JVM and stops by itself after a second idle. */
    @Override
    boolean isSharedLibraryThread(final String name) {
        return name.startsWith("globalEventExecutor");
    }

    @Override
    boolean batchesUntilFlush() {
        return true;
    }
}
