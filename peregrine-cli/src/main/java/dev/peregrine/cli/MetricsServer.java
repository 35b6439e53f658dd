package dev.peregrine.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * The HTTP endpoint of {@code peregrine stat --serve}: {@code GET /metrics} answers with a fresh OpenMetrics
 * exposition ({@link StatFormats#openMetrics}, what {@code stat --prometheus} prints) for a Prometheus server to
 * scrape. Any other path is 404, any other method 405. Built on the JDK's {@code com.sun.net.httpserver}; its one
 * dispatcher thread serves one scrape at a time.
 */
final class MetricsServer implements AutoCloseable {
    /** The content type of the OpenMetrics 1.0 text format. */
    static final String CONTENT_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    /** The path Prometheus scrapes by default. */
    static final String PATH = "/metrics";

    private final HttpServer server;

    private MetricsServer(final HttpServer server) {
        this.server = server;
    }

    /**
     * Binds and starts serving.
     *
     * @param address where to listen; port 0 for any free one
     * @param exposition the body of each answer, read anew per scrape
     * @return the running server
     * @throws IOException if the address cannot be bound (in use, not this host's)
     */
    static MetricsServer start(final InetSocketAddress address, final Supplier<String> exposition) throws IOException {
        final HttpServer server = HttpServer.create(address, 0);
        server.createContext(PATH, exchange -> answer(exchange, exposition));
        server.start();
        return new MetricsServer(server);
    }

    private static void answer(final HttpExchange exchange, final Supplier<String> exposition) throws IOException {
        try (exchange) {
            if (!exchange.getRequestURI().getPath().equals(PATH)) { // the context also matches /metricsfoo
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            final String method = exchange.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            final byte[] body;
            try {
                body = exposition.get().getBytes(StandardCharsets.UTF_8);
            } catch (final RuntimeException ex) {
                final byte[] reason = ("cannot read the counters: " + ex.getMessage() + "\n").getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
                exchange.sendResponseHeaders(500, reason.length);
                exchange.getResponseBody().write(reason);
                return;
            }
            exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
            if (method.equals("HEAD")) {
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /**
     * The address it listens on.
     *
     * @return the bound address, with the port chosen when 0 was asked for
     */
    InetSocketAddress address() {
        return server.getAddress();
    }

    /** Stops listening and closes open exchanges at once. */
    @Override
    public void close() {
        server.stop(0);
    }
}
