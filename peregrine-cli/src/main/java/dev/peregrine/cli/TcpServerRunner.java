package dev.peregrine.cli;

import dev.peregrine.channel.ChannelHandler;
import dev.peregrine.channel.Transport;
import dev.peregrine.reactor.BlockingSelectIdleStrategy;
import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;
import dev.peregrine.tcp.TcpOptions;
import dev.peregrine.tcp.TcpTransport;

import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintStream;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * Runs an example TCP server on a reactor on the calling thread until the process is stopped (Ctrl-C).
 * The reactor sleeps in the selector when idle: an example should not burn a core.
 */
final class TcpServerRunner {
    private TcpServerRunner() {
    }

    /**
     * Starts the server, waits until it listens (or fails), then serves until the process ends.
     *
     * @param spec the command, for a user error about its {@code --port} or {@code --host}
     * @param address what the server listens on, as given
     * @param banner a line for standard output once the server listens, or null; nothing is printed for a server that
     *     could not listen, whose only output is the one-line error
     * @return the exit code: 0 after a clean stop
     * @throws picocli.CommandLine.ParameterException if it cannot listen (the port is in use, the address is not this
     *     machine's): a user error, nothing has run
     */
    static int run(final CommandSpec spec, final String address, final ChannelHandler server, final TcpOptions options,
        final ToLongFunction<Transport> start, final Supplier<String> listenFailure, final PrintStream err, final String banner) {
        return run(spec, address, server, options, start, listenFailure, err, banner, reactor -> { });
    }

    /**
     * As {@link #run(CommandSpec, String, ChannelHandler, TcpOptions, ToLongFunction, Supplier, PrintStream, String)},
     * telling {@code running} the reactor once the server listens (a test closes it to stop the server).
     */
    static int run(final CommandSpec spec, final String address, final ChannelHandler server, final TcpOptions options,
        final ToLongFunction<Transport> start, final Supplier<String> listenFailure, final PrintStream err, final String banner,
        final Consumer<Reactor> running) {
        final String name = spec.name();
        final Reactor reactor = new Reactor(new ReactorOptions().name(name)
            .idleStrategy(new BlockingSelectIdleStrategy())
            .errorHandler(error -> err.println(name + ": " + error)));
        final TcpTransport transport = new TcpTransport(reactor, options, server);
        final long serverId = start.applyAsLong(transport);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (transport.localAddress(serverId) == null && listenFailure.get() == null && System.nanoTime() < deadline) {
            reactor.doWork();
        }
        if (transport.localAddress(serverId) == null) {
            final String why = listenFailure.get();
            transport.close();
            reactor.close();
            throw Cli.invalid(spec.commandLine(), "--port", address + " cannot be listened on: "
                + (why == null ? "no answer within 10 s" : why) + "; expected a free port (another program may be using it)");
        }
        if (banner != null) {
            System.out.println(banner);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(reactor::close, name + "-stop"));
        running.accept(reactor);
        reactor.run();
        return 0;
    }
}
