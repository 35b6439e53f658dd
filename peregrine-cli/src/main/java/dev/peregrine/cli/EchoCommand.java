package dev.peregrine.cli;

import dev.peregrine.examples.EchoServer;
import dev.peregrine.log.AsyncLogger;
import dev.peregrine.log.LoggerOptions;
import dev.peregrine.log.LoggingHandler;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.tcp.Framing;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code peregrine echo}: the echo server of the examples, for any framing.
 */
@Command(name = "echo", mixinStandardHelpOptions = true,
    description = {"A TCP server that sends every message back, framed as it came. Stop with Ctrl-C.",
        "Try it with: ./peregrine echo --framing line, then nc localhost 9999 and type lines."},
    footer = {"", "Framings (--framing):",
        "  raw                      no framing: bytes are echoed as they arrive",
        "  fixed:N                  every message is exactly N bytes",
        "  length:W(be|le)[+self]   a W-byte (W = 1, 2, 4 or 8) big- or little-endian",
        "                           length before each message; +self when it counts",
        "                           its own bytes: length:2be, length:4le, length:8be+self",
        "  line                     terminated by \\n",
        "  crlf                     terminated by \\r\\n",
        "  delimiter:HEX            terminated by any byte pattern, e.g. delimiter:00 or delimiter:0d0a",
        "A message over --max-frame, or a bad length field, closes that connection",
        "with the reason; the other connections go on.",
        "--log FILE appends a line per connection event (and with --log-messages per",
        "message received) through the asynchronous logger; see docs/logging.md."})
public final class EchoCommand implements Callable<Integer>, Validated {
    @Spec
    CommandSpec spec;

    @Range(min = 1, max = 65535)
    @Option(names = "--port", defaultValue = "9999", description = "TCP port to listen on (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--host", defaultValue = "0.0.0.0", converter = Converters.LocalAddress.class,
        description = "Address to listen on (default: ${DEFAULT-VALUE}, every interface).")
    String host;

    @Option(names = "--framing", defaultValue = "line", converter = FramingConverter.class,
        description = "How messages are delimited (default: ${DEFAULT-VALUE}); see the list below.")
    Framing framing;

    @Range(min = 1)
    @Option(names = "--max-frame", defaultValue = "65536",
        description = "Longest message in bytes (default: ${DEFAULT-VALUE}); a length field caps it to what it can express.")
    int maxFrame;

    @Option(names = "--log", converter = Converters.WritableFile.class, paramLabel = "FILE",
        description = "Append a line per connection event to FILE, written by a logger thread of its own.")
    Path log;

    @Option(names = "--log-messages", description = "With --log: a line per message received too (its first 256 bytes).")
    boolean logMessages;

    /** Sees the reactor once the server listens: a test closes it to stop the server. */
    Consumer<Reactor> running = reactor -> { };

    /** Creates the command; picocli fills the options. */
    public EchoCommand() {
    }

    @Override
    public void validate() {
        if (logMessages && log == null) {
            throw Cli.invalid(spec.commandLine(), "--log-messages", "given without --log; expected --log FILE --log-messages");
        }
    }

    @Override
    public Integer call() {
        final EchoServer server = new EchoServer(new InetSocketAddress(host, port), System.out::println);
        final String banner = "echo: framing " + framing + ", max frame " + framing.effectiveMaxFrameLength(maxFrame) + " bytes";
        if (log == null) {
            return TcpServerRunner.run(spec, host + ":" + port, server, EchoServer.options(framing, maxFrame), server::start,
                server::listenFailure, System.err, banner, running);
        }
        final AsyncLogger logger = AsyncLogger.open(log, new LoggerOptions().threadName("echo-logger"));
        final Thread flushAtExit = new Thread(logger::close, "echo-logger-close"); // Ctrl-C: what was committed is written
        Runtime.getRuntime().addShutdownHook(flushAtExit);
        try {
            return TcpServerRunner.run(spec, host + ":" + port, new LoggingHandler(logger, server, logMessages),
                EchoServer.options(framing, maxFrame), server::start, server::listenFailure, System.err,
                banner + ", logging " + (logMessages ? "events and messages" : "events") + " to " + log, running);
        } finally {
            logger.close();
            try {
                Runtime.getRuntime().removeShutdownHook(flushAtExit);
            } catch (final IllegalStateException ex) {
                // the JVM is shutting down: the hook runs (and finds the logger closed)
            }
        }
    }
}
