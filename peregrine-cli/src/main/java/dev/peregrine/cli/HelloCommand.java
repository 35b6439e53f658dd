package dev.peregrine.cli;

import dev.peregrine.examples.HelloServer;

import java.net.InetSocketAddress;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code peregrine hello}: the greeting server of the examples.
 */
@Command(name = "hello", mixinStandardHelpOptions = true,
    description = {"A TCP server that greets every connection with \"Hi!\" and a newline, then ignores what it is sent.",
        "Try it with: nc localhost 8889   (or telnet localhost 8889). Stop with Ctrl-C."})
public final class HelloCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Range(min = 1, max = 65535)
    @Option(names = "--port", defaultValue = "8889", description = "TCP port to listen on (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--host", defaultValue = "0.0.0.0", converter = Converters.LocalAddress.class,
        description = "Address to listen on (default: ${DEFAULT-VALUE}, every interface).")
    String host;

    /** Creates the command; picocli fills the options. */
    public HelloCommand() {
    }

    @Override
    public Integer call() {
        final HelloServer server = new HelloServer(new InetSocketAddress(host, port), System.out::println);
        return TcpServerRunner.run(spec, host + ":" + port, server, HelloServer.options(), server::start, server::listenFailure, System.err, null);
    }
}
