package dev.peregrine.bench.transports;

import dev.peregrine.log.AsyncLogger;
import dev.peregrine.log.LoggerOptions;
import dev.peregrine.peers.BenchConfig;
import dev.peregrine.peers.BenchTransport;
import dev.peregrine.peers.Responder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code peregrine-tcp} with a responder that logs every connection event and every message through the
 * asynchronous logger before it echoes ({@link dev.peregrine.log.LoggingHandler} over an
 * {@link AsyncLogger}, what {@code ./peregrine echo --log FILE --log-messages} runs). The log goes to a file in the
 * run's directory ({@link BenchConfig#directory()}) that the responder deletes when it stops. The logger's thread parks when idle (its default strategy), so on
 * 2 vCPUs it takes no core from the two spinning sides. Named {@code peregrine-tcp[logged]}, so that its rows stand
 * beside {@code peregrine-tcp}'s in one run; {@code --stack logged} asks for it.
 */
public final class LoggedBench extends ResponderVariant {
    /** What the logged variant's name ends with. */
    public static final String SUFFIX = "[logged]";
    /** The transport that has a logged variant. */
    public static final String BASE = "peregrine-tcp";
    /** One line for the report: what the {@code [logged]} rows measure. */
    public static final String NOTE = "[logged] rows: the responder logs every event and message through the async"
        + " logger (LoggingHandler, as echo --log FILE --log-messages) to a temporary file; the logger's thread"
        + " parks when idle";

    private LoggedBench(final PeregrineTcpBench base) {
        super(base);
    }

    /**
     * The logged variant of a transport.
     *
     * @param base {@code peregrine-tcp}
     * @return the variant
     * @throws IllegalArgumentException for any other transport
     */
    public static LoggedBench of(final BenchTransport base) {
        if (!(base instanceof PeregrineTcpBench tcp)) {
            throw new IllegalArgumentException("transport=" + base.name() + " has no logged responder; only "
                + BASE + " has one");
        }
        return new LoggedBench(tcp);
    }

    @Override
    public String name() {
        return base.name() + SUFFIX;
    }

    @Override
    public String description() {
        return base.name() + " with the responder logging every event and message through the async logger before"
            + " it echoes (LoggingHandler over AsyncLogger, as echo --log FILE --log-messages), to a temporary file;"
            + " client as in " + base.name();
    }

    @Override
    public Responder startResponder(final BenchConfig config) throws Exception {
        final Path file = Files.createTempFile(config.directory(), "peregrine-bench-logged-", ".log");
        final AsyncLogger logger = AsyncLogger.open(file, new LoggerOptions().threadName("bench-logger"));
        final PeregrineTcpResponder responder;
        try {
            responder = PeregrineTcpResponder.start(config, false, logger);
        } catch (final Exception ex) {
            logger.close();
            Files.deleteIfExists(file);
            throw ex;
        }
        return new Responder() {
            @Override
            public long messages() {
                return responder.messages();
            }

            @Override
            public void close() {
                responder.close(); // closes the logger after the reactor
                try {
                    Files.deleteIfExists(file);
                } catch (final IOException ex) {
                    throw new UncheckedIOException("cannot delete the bench's log " + file, ex);
                }
            }
        };
    }
}
