package dev.peregrine.bench.transports;

import dev.peregrine.channel.SendResult;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchMessageLayout;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.PingClient;
import dev.peregrine.peers.Responder;
import dev.peregrine.peers.StreamReceiver;
import dev.peregrine.peers.StreamSender;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.udp.UdpEndpoint;
import dev.peregrine.udp.UdpOptions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * Peregrine's raw UDP ping-pong.
 *
 * <p>With {@link BenchConfig#busySpin()} both sides take the path of the C floor (two processes polling
 * connected non-blocking sockets with {@code recv}/{@code send}): the client binds {@code port + 1} and
 * the responder {@code port}, each endpoint is connected to the other with
 * {@link UdpOptions#connectedReadWrite} (read(2)/write(2), no source address per datagram), and each is
 * polled by a thread of its own calling {@link UdpEndpoint#receive} in a loop, so no readiness system
 * call ({@code epoll_wait} of the reactor's {@code selectNow}) sits between two reads; each call reads one
 * datagram ({@link UdpOptions#receiveBatch} 1, see {@link #pollingOptions}). The client writes
 * its message straight into the endpoint's send buffer. Those endpoints ask for {@link UdpOptions#nativeSocket}
 * ({@code recv}/{@code send} through the FFM API) unless {@code -Dperegrine.udp.native=false} says otherwise
 * (forwarded to a responder JVM), or the host is IPv6, which the native socket does not take; {@link #description()}
 * says which path ran.
 *
 * <p>Otherwise the responder is an unconnected endpoint on a backing-off reactor thread that echoes each
 * datagram to its sender, and the client's connected endpoint waits for the selector.
 *
 * <p>{@code bench load}'s shared topology ({@link #startSharedResponder}, {@link #connectAll}): that unconnected
 * endpoint, on one reactor thread that busy-spins when the run does, answers every client by its address; the
 * clients' endpoints, each on a port of its own, share one reactor that is never started, and the one client
 * thread polls each endpoint in its client's turn. A datagram lost on the way is counted lost ({@link #lossy()}).
 */
public final class PeregrineUdpBench implements BenchTransport {
    /** Largest UDP payload over IPv4. */
    static final int MAX_UDP_PAYLOAD = 65_507;
    /** System property: {@code false} keeps the busy-spin endpoints on the JDK's DatagramChannel, to compare. */
    static final String NATIVE_PROPERTY = "peregrine.udp.native";
    static final ValueLayout.OfLong SEQUENCE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    /** Creates the adapter (service loader). */
    public PeregrineUdpBench() {
    }

    @Override
    public String name() {
        return "peregrine-udp";
    }

    @Override
    public String description() {
        return "Peregrine UdpEndpoint: one datagram per message over loopback; busy-spin: both endpoints connected"
            + " (connectedReadWrite: read/write, no address), each polled by its own spinning thread without a selector,"
            + " one datagram per poll (receiveBatch 1);"
            + " otherwise a backing-off responder reactor echoing to the sender; a reply of another size is sent from a buffer"
            + " of its own with the sequence copied in; load, shared topology: one unconnected endpoint on one responder"
            + " reactor answers every client by its address, the clients' endpoints share one reactor polled by one thread;"
            + " busy-spin socket path: " + nativePath();
    }

    /** Which socket path the busy-spin endpoints take in this JVM, in words. */
    static String nativePath() {
        if (!nativeSocket()) {
            return "JDK DatagramChannel (-D" + NATIVE_PROPERTY + "=false)";
        }
        final String reason = UdpEndpoint.nativeSocketUnavailableReason();
        return reason == null ? "native recv/send through FFM (UdpOptions.nativeSocket; -D" + NATIVE_PROPERTY
            + "=false for the JDK DatagramChannel); " + IPV6_PATH : "JDK DatagramChannel, native socket unavailable: " + reason;
    }

    /** What an IPv6 {@code --host} takes instead of the native socket, and why. */
    static final String IPV6_PATH = "an IPv6 host takes the JDK DatagramChannel (the native socket is IPv4 only)";

    static boolean nativeSocket() {
        return Boolean.parseBoolean(System.getProperty(NATIVE_PROPERTY, "true"));
    }

    @Override
    public List<String> jvmArguments() {
        return forwarded(NATIVE_PROPERTY);
    }

    /**
     * The bench's switches that are set in this JVM, as options for a JVM it starts, so that both run alike.
     *
     * @param properties the system properties to pass on
     * @return {@code -Dname=value} for each one set
     */
    static List<String> forwarded(final String... properties) {
        final List<String> arguments = new ArrayList<>(properties.length);
        for (final String property : properties) {
            final String setting = System.getProperty(property);
            if (setting != null) {
                arguments.add("-D" + property + "=" + setting);
            }
        }
        return arguments;
    }

    @Override
    public String path() {
        return "udp";
    }

    @Override
    public String unavailableReason(final BenchConfig config) {
        return config.size() > MAX_UDP_PAYLOAD ? "size=" + config.size() + " exceeds one UDP datagram (65507 bytes)"
            : config.replySize() > MAX_UDP_PAYLOAD ? "replySize=" + config.replySize()
            + " exceeds one UDP datagram (65507 bytes)" : null;
    }

    static Reactor reactor(final BenchConfig config, final String name) {
        return new Reactor(new ReactorOptions().name(name)
            .idleStrategy(PeregrineTcpBench.idleStrategy(config)));
    }

    static InetSocketAddress address(final BenchConfig config, final int portOffset) {
        try {
            return new InetSocketAddress(InetAddress.getByName(config.host()), config.port() + portOffset);
        } catch (final UnknownHostException ex) {
            throw new IllegalArgumentException("host=" + config.host(), ex);
        }
    }

    static UdpOptions options(final BenchConfig config) {
        // nativeSocket applies to the busy-polled connectedReadWrite endpoints only; the others ignore it. It takes
        // IPv4 only (UdpEndpoint.open refuses an IPv6 address with it), so an IPv6 host keeps the DatagramChannel.
        return new UdpOptions().busyPoll(config.busySpin()).receiveBufferSize(4 << 20).sendBufferSize(4 << 20)
            .nativeSocket(nativeSocket() && !(address(config, 0).getAddress() instanceof Inet6Address));
    }

    /**
     * A busy-spin ping-pong endpoint, polled by a thread that does nothing else: connected, and one datagram per
     * {@link UdpEndpoint#receive} ({@link UdpOptions#receiveBatch} 1), as the C floor's loop reads. With the default
     * batch each read that finds a datagram is followed by one more {@code recv(2)}, which finds the socket empty,
     * before {@code receive} returns: one more system call per round trip between the echo's handler and the
     * client's clock (6-10% of a 32-byte round trip on the development VM, against a bare FFM loop in the same two processes).
     */
    static UdpOptions pollingOptions(final BenchConfig config) {
        return options(config).connectedReadWrite(true).receiveBatch(1);
    }

    @Override
    public Responder startResponder(final BenchConfig config) {
        return config.busySpin() ? startPollingResponder(config) : startSharedResponder(config);
    }

    /**
     * One unconnected endpoint on one reactor thread (busy-spinning when the run asks for it) that echoes each
     * datagram to its sender, whichever client sent it: the responder of {@code bench load}'s shared topology,
     * and the backing-off responder of a ping-pong that does not busy-spin.
     */
    @Override
    public Responder startSharedResponder(final BenchConfig config) {
        final Reactor reactor = reactor(config, "peregrine-udp-responder");
        final EchoResponder responder = new EchoResponder(reactor);
        final MemorySegment reply = replyBuffer(config);
        final int sequenceLength = config.sequenceLength();
        UdpEndpoint.open(reactor, options(config).localAddress(address(config, 0)), (endpoint, buffer, offset, length, sender, nowNs) -> {
            if (reply == null) {
                while (endpoint.sendTo(buffer, offset, length, sender) == SendResult.BACK_PRESSURED) {
                    Thread.onSpinWait();
                }
            } else {
                MemorySegment.copy(buffer, offset, reply, 0, Math.min(length, sequenceLength));
                while (endpoint.sendTo(reply, 0, (int)reply.byteSize(), sender) == SendResult.BACK_PRESSURED) {
                    Thread.onSpinWait();
                }
            }
            responder.echoed++;
        });
        reactor.start();
        return responder;
    }

    /** The busy-spin responder: connected to the client's port, echoing with write(2), polled by a thread that does nothing else. */
    private static Responder startPollingResponder(final BenchConfig config) {
        final Reactor reactor = reactor(config, "peregrine-udp-responder"); // owns the endpoint, never started
        final EchoResponder responder = new EchoResponder(reactor);
        final MemorySegment reply = replyBuffer(config);
        final int sequenceLength = config.sequenceLength();
        final UdpEndpoint endpoint = UdpEndpoint.open(reactor, pollingOptions(config)
            .localAddress(address(config, 0)).remoteAddress(address(config, 1)), (source, buffer, offset, length, sender, nowNs) -> {
                if (reply == null) {
                    while (source.send(buffer, offset, length) == SendResult.BACK_PRESSURED) {
                        Thread.onSpinWait();
                    }
                } else {
                    MemorySegment.copy(buffer, offset, reply, 0, Math.min(length, sequenceLength));
                    while (source.send(reply, 0, (int)reply.byteSize()) == SendResult.BACK_PRESSURED) {
                        Thread.onSpinWait();
                    }
                }
                responder.echoed++;
            });
        responder.thread = new Thread(() -> {
            while (!responder.closing) {
                endpoint.receive(0);
            }
            endpoint.close(); // on the thread that owns it; close() joins before closing the reactor
        }, "peregrine-udp-responder");
        responder.thread.setDaemon(true);
        responder.thread.start();
        return responder;
    }

    /**
     * The buffer a responder answers from when the reply size differs from the message's (the sequence is
     * field copied to its start), or null to echo each datagram as it came.
     *
     * @param config the run's configuration
     * @return the buffer, or null
     */
    static MemorySegment replyBuffer(final BenchConfig config) {
        return config.asymmetric() ? Arena.ofAuto().allocate(config.replySize(), 8) : null;
    }

    @Override
    public boolean supportsReplySize() {
        return true;
    }

    @Override
    public PingClient connect(final BenchConfig config) {
        final Reactor reactor = reactor(config, "peregrine-udp-client");
        final Client client = new Client(reactor, config.size(), config.replySize());
        final UdpOptions options = config.busySpin()
            ? pollingOptions(config).localAddress(address(config, 1))
            : options(config).localAddress(new InetSocketAddress(address(config, 0).getAddress(), 0));
        client.endpoint = UdpEndpoint.open(reactor, options.remoteAddress(address(config, 0)), client::onDatagram);
        return client;
    }

    @Override
    public boolean sharedResponder() {
        return true; // one unconnected endpoint answers every client by its address
    }

    @Override
    public List<PingClient> connectAll(final BenchConfig config, final int count) {
        final Reactor reactor = reactor(config, "peregrine-udp-clients"); // never started: the caller's thread polls
        final int[] open = {count};
        final Runnable release = () -> {
            if (--open[0] == 0) {
                reactor.close();
            }
        };
        final List<PingClient> clients = new ArrayList<>(count);
        try {
            for (int k = 0; k < count; k++) {
                final Client client = new Client(reactor, config.size(), config.replySize(), release);
                client.endpoint = UdpEndpoint.open(reactor, options(config).busyPoll(false)
                    .localAddress(new InetSocketAddress(address(config, 0).getAddress(), 0))
                    .remoteAddress(address(config, 0)), client::onDatagram);
                clients.add(client);
            }
        } catch (final RuntimeException ex) {
            for (final PingClient client : clients) {
                client.close();
            }
            if (clients.isEmpty()) {
                reactor.close();
            }
            throw ex;
        }
        return clients;
    }

    @Override
    public boolean lossy() {
        return true; // plain datagrams: a receive buffer that overflows drops them (MoldUDP64 is the reliable layer)
    }

    @Override
    public boolean supportsStream() {
        return true;
    }

    @Override
    public StreamReceiver startStreamReceiver(final BenchConfig config) {
        final Reactor reactor = reactor(config, "peregrine-udp-stream-receiver");
        final Receiver receiver = new Receiver(reactor);
        receiver.endpoint = UdpEndpoint.open(reactor, options(config).localAddress(address(config, 0)), receiver::onDatagram);
        return receiver;
    }

    @Override
    public StreamSender connectStreamSender(final BenchConfig config) {
        final Reactor reactor = reactor(config, "peregrine-udp-stream-sender");
        final Client sender = new Client(reactor, config.size(), config.size());
        sender.endpoint = UdpEndpoint.open(reactor, options(config).remoteAddress(address(config, 0)), sender::onDatagram);
        return sender;
    }

    /** The echo side: a reactor thread, or a thread of the adapter's own polling the reactor's sockets. */
    static final class EchoResponder implements Responder {
        private final Reactor reactor;
        volatile long echoed;
        /** Set by {@link #close()} to stop a polling {@link #thread}. */
        volatile boolean closing;
        /** A thread driving the reactor's sockets by hand instead of the reactor's own, or null. */
        Thread thread;
        /** What the responder holds beside its reactor (a MoldUDP64 store), released after it. */
        Runnable release = () -> { };

        EchoResponder(final Reactor reactor) {
            this.reactor = reactor;
        }

        @Override
        public long messages() {
            return echoed;
        }

        @Override
        public void close() {
            closing = true;
            if (thread != null) {
                try {
                    thread.join();
                } catch (final InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
            reactor.close();
            release.run();
        }
    }

    /** Client of a ping-pong, or sender of a stream: used by one thread, which polls the endpoint itself. */
    static final class Client implements PingClient, StreamSender {
        private final Runnable release;
        private boolean closed;
        private final MemorySegment message;
        private final int size;
        UdpEndpoint endpoint;
        private final EchoSequences received = new EchoSequences();
        private final int replySize;
        /** Bytes of the sequence field ({@link BenchMessageLayout}): 8 for a stream, whose sizes are equal. */
        private final int sequenceLength;
        private long lastSent;
        private IllegalStateException replyFailure;

        Client(final Reactor reactor, final int size, final int replySize) {
            this(reactor, size, replySize, reactor::close);
        }

        /** A client whose endpoint lives on a reactor it shares: {@code release} runs once it is closed. */
        Client(final Reactor reactor, final int size, final int replySize, final Runnable release) {
            this.release = release;
            this.size = size;
            this.replySize = replySize;
            this.sequenceLength = BenchMessageLayout.sequenceLength(size, replySize);
            this.message = Arena.ofAuto().allocate(size, 8);
        }

        void onDatagram(final UdpEndpoint source, final MemorySegment buffer, final long offset, final int length,
            final InetSocketAddress sender, final long nowNs) {
            if (length != replySize && replyFailure == null) {
                replyFailure = new IllegalStateException("reply of length=" + length + " to sequence="
                    + (length >= sequenceLength ? BenchMessageLayout.sequence(buffer, offset, sequenceLength) : -1)
                    + ", expected replySize=" + replySize);
            } else if (length >= sequenceLength) {
                received.add(BenchMessageLayout.sequence(buffer, offset, sequenceLength));
            }
        }

        @Override
        public void send(final long sequence) {
            // in place: no copy (the rest stays zero, as in message)
            BenchMessageLayout.putSequence(endpoint.sendBuffer(), 0, sequenceLength, sequence);
            lastSent = sequence;
            while (endpoint.sendPrepared(size, null) == SendResult.BACK_PRESSURED) {
                Thread.onSpinWait();
            }
        }

        @Override // compiled in this class, the loop's call of offer(long) is this class's alone
        public int offer(final long firstSequence, final int count) {
            return StreamSender.offerEach(this, firstSequence, count);
        }

        @Override
        public boolean offer(final long sequence) {
            BenchMessageLayout.putSequence(message, 0, sequenceLength, sequence);
            return endpoint.send(message, 0, size) >= 0;
        }

        @Override
        public long poll() {
            if (received.isEmpty()) {
                endpoint.receive(0); // may deliver several echoes when several messages are in flight
                if (replyFailure != null) {
                    throw replyFailure;
                }
            }
            final long field = received.poll();
            return field < 0 ? -1 : BenchMessageLayout.widen(field, lastSent, sequenceLength);
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            endpoint.close();
            release.run();
        }
    }

    /** Receiving side of a stream, polled by the caller's thread. */
    static final class Receiver implements StreamReceiver {
        private final Reactor reactor;
        UdpEndpoint endpoint;
        private LongConsumer consumer;
        private int delivered;

        Receiver(final Reactor reactor) {
            this.reactor = reactor;
        }

        void onDatagram(final UdpEndpoint source, final MemorySegment buffer, final long offset, final int length,
            final InetSocketAddress sender, final long nowNs) {
            if (length >= 8) {
                delivered++;
                consumer.accept(buffer.get(SEQUENCE, offset));
            }
        }

        @Override
        public int poll(final LongConsumer sequences) {
            consumer = sequences;
            delivered = 0;
            endpoint.receive(0);
            return delivered;
        }

        @Override
        public void close() {
            endpoint.close();
            reactor.close();
        }
    }
}
