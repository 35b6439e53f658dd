package dev.peregrine.peers;

import java.util.List;

/**
 * A transport as the benchmark sees it: a responder that echoes every message back, a client that sends
 * messages and receives the echoes, and optionally a one-way stream for throughput. Implementations are
 * found by {@link #name()}; the responder may run in another process started with the same name and
 * {@link BenchConfig}.
 *
 * <p>Contract for fairness: both sides move {@code size} bytes per message through the transport's normal
 * API, the first {@link BenchConfig#sequenceLength()} bytes carry the sequence number (little-endian; its low 32
 * bits when the message or the reply is shorter than 8 bytes, see
 * {@link dev.peregrine.peers.BenchMessageLayout}) and are echoed unchanged, waiting sides
 * busy-spin when {@link BenchConfig#busySpin()} is set, and nothing allocates per message in steady state.
 * A responder answers each message with {@link BenchConfig#replySize()} bytes (by default the message itself)
 * carrying the message's sequence field; the client checks every reply's length and sequence. With
 * {@link BenchConfig#respondEvery()} above 1 it answers only every Nth message ({@link #supportsRespondEvery()}).
 */
public interface BenchTransport {
    /**
     * Short name used on the command line and in tables, e.g. {@code tcp}, {@code netty}, {@code aeron-ipc}.
     *
     * @return the name
     */
    String name();

    /**
     * What is being measured and how it is configured, printed in the report.
     *
     * @return one line
     */
    String description();

    /**
     * The path this transport takes, so tables group like with like: {@code tcp}, {@code udp} or {@code shm}.
     *
     * @return the path
     */
    String path();

    /**
     * JVM options this transport needs (for example to let a library use {@code sun.misc.Unsafe} without a
     * warning), so the benchmark can start a responder JVM with them and print them in the report.
     *
     * @return the options, empty if none
     */
    default List<String> jvmArguments() {
        return List.of();
    }

    /**
     * Why this transport cannot run on this machine, or {@code null} if it can.
     *
     * @param config the run's configuration
     * @return the reason, in one sentence, or {@code null}
     */
    default String unavailableReason(final BenchConfig config) {
        return null;
    }

    /**
     * Why this transport cannot serve {@code clients} clients at once in one run, or {@code null} if it can: a
     * transport whose every connection holds much memory (shared-memory rings) caps their number here.
     *
     * @param config the run's configuration
     * @param clients how many clients the run connects
     * @return the reason, in one sentence, or {@code null}
     */
    default String clientsUnavailableReason(final BenchConfig config, final int clients) {
        return null;
    }

    /**
     * Starts the echo side; returns once it is ready for a client.
     *
     * @param config the run's configuration
     * @return the running responder
     * @throws Exception if it cannot start
     */
    Responder startResponder(BenchConfig config) throws Exception;

    /**
     * Connects a client to a started responder.
     *
     * @param config the run's configuration
     * @return the connected client
     * @throws Exception if it cannot connect
     */
    PingClient connect(BenchConfig config) throws Exception;

    /**
     * Starts the echo side of {@code bench load}'s one-responder topology: one responder that serves every client
     * {@link #connectAll} connects with the same configuration. By default {@link #startResponder}, for a
     * transport whose responder serves any number of clients as it is; a transport whose single-client responder
     * takes a faster path that serves one peer only (a connected datagram socket) starts another here.
     *
     * @param config the run's configuration
     * @return the running responder
     * @throws Exception if it cannot start
     */
    default Responder startSharedResponder(final BenchConfig config) throws Exception {
        return startResponder(config);
    }

    /**
     * Whether one responder from {@link #startSharedResponder} serves any number of clients connected with the
     * same configuration, all on one thread (a blocking-socket peer: a thread per connection, which is what it
     * needs), keeping each client's echoes apart. The load scenario's default topology runs its clients against
     * one such responder; a transport that cannot is reported unavailable for it.
     *
     * @return true if one responder serves many clients
     */
    default boolean sharedResponder() {
        return false;
    }

    /**
     * Connects {@code count} clients to one started responder, all to be used by the calling thread (a transport
     * may drive them all with one event loop). By default, {@link #connect} {@code count} times.
     *
     * @param config the run's configuration
     * @param count how many clients
     * @return the connected clients, in the order their sequences are checked
     * @throws Exception if one cannot connect (those already connected are closed)
     */
    default List<PingClient> connectAll(final BenchConfig config, final int count) throws Exception {
        return Clients.connectEach(count, i -> connect(config));
    }

    /**
     * Whether the responder answers with {@link BenchConfig#replySize()} bytes when it differs from the message
     * size (the reply still starts with the message's sequence field), and the client checks every reply's length. A
     * transport that cannot is reported unavailable for such a run.
     *
     * @return true if asymmetric replies are implemented
     */
    default boolean supportsReplySize() {
        return false;
    }

    /**
     * Whether the responder answers only the messages {@link BenchConfig#answers(long, int)} picks when
     * {@link BenchConfig#respondEvery()} is above 1 (it still reads every message, and the answers keep their
     * order), so that a client can send far faster than answers come back. A transport that cannot is reported
     * unavailable for such a run.
     *
     * @return true if answering every Nth message is implemented
     */
    default boolean supportsRespondEvery() {
        return false;
    }

    /**
     * Whether {@link #startStreamReceiver} and {@link #connectStreamSender} are implemented.
     *
     * @return true if this transport has a one-way throughput mode
     */
    default boolean supportsStream() {
        return false;
    }

    /**
     * Whether the stream may lose messages (datagrams without a recovery layer): the throughput receiver then
     * counts a forward gap as loss and reports it, instead of failing the run. Reordering and duplicates still
     * fail it.
     *
     * @return true for a transport without delivery guarantees
     */
    default boolean lossy() {
        return false;
    }

    /**
     * Starts the receiving side of a one-way stream.
     *
     * @param config the run's configuration
     * @return the receiver, polled by the caller's thread
     * @throws Exception if it cannot start
     */
    default StreamReceiver startStreamReceiver(final BenchConfig config) throws Exception {
        throw new UnsupportedOperationException(name() + " has no stream mode");
    }

    /**
     * Connects the sending side of a one-way stream.
     *
     * @param config the run's configuration
     * @return the sender
     * @throws Exception if it cannot connect
     */
    default StreamSender connectStreamSender(final BenchConfig config) throws Exception {
        throw new UnsupportedOperationException(name() + " has no stream mode");
    }
}
