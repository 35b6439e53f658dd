package dev.peregrine.peers.nio;

import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;

import java.io.IOException;

/**
 * The textbook single-selector NIO loop as a peer: the clients and framing of {@link NioBenchTransport} ("nio"),
 * and a responder that waits in one {@link java.nio.channels.Selector} for every connection instead of reading
 * each one on every pass ({@link NioSelectorResponder}). It is the NIO baseline at many connections.
 */
public final class NioSelectorBenchTransport implements BenchTransport {
    /** Creates the transport (found by {@link java.util.ServiceLoader}). */
    public NioSelectorBenchTransport() {
    }

    @Override
    public String name() {
        return "nio-selector";
    }

    @Override
    public String description() {
        return "textbook single-selector java.nio loop: the nio peer's client and frames ([int32 length][payload], "
            + "TCP_NODELAY, direct ByteBuffers of " + NioBenchTransport.BUFFER_SIZE / 1024 + " KiB); the responder is "
            + "one thread with one Selector holding the listening channel (OP_ACCEPT) and every connection (OP_READ, "
            + "OP_WRITE only while a write is partial), selectNow() when busy-spinning and a blocking select() "
            + "otherwise, each ready key handed to a consumer (no selected-key set); per ready connection one read, "
            + "all whole frames echoed with one write (replies of another size gathered in a 64 KiB buffer of the "
            + "connection's own); no stream mode";
    }

    @Override
    public String path() {
        return "tcp";
    }

    @Override
    public Responder startResponder(final BenchConfig config) throws IOException {
        return NioSelectorResponder.start(config);
    }

    @Override
    public PingClient connect(final BenchConfig config) throws IOException {
        return new NioPingClient(NioBenchTransport.open(config), config);
    }

    @Override
    public boolean sharedResponder() {
        return true; // one thread and one selector serve the listening channel and every connection
    }

    @Override
    public boolean supportsReplySize() {
        return true;
    }

    @Override
    public boolean supportsRespondEvery() {
        return true;
    }
}
