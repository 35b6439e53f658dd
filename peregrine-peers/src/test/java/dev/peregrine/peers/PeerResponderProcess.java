package dev.peregrine.peers;

import java.nio.file.Path;
import java.util.ServiceLoader;

/**
 * Child-process entry point for cross-process tests: starts the named transport's responder, prints
 * {@code READY}, and closes it when standard input closes.
 */
public final class PeerResponderProcess {
    private PeerResponderProcess() {
    }

    /**
     * Runs the responder.
     *
     * @param args transport name, port, size, directory
     * @throws Exception if the responder fails
     */
    public static void main(final String[] args) throws Exception {
        final BenchConfig config = new BenchConfig("127.0.0.1", Integer.parseInt(args[1]), Integer.parseInt(args[2]),
            Path.of(args[3]), true);
        for (final BenchTransport transport : ServiceLoader.load(BenchTransport.class)) {
            if (transport.name().equals(args[0])) {
                try (Responder responder = transport.startResponder(config)) {
                    System.out.println("READY");
                    System.out.flush();
                    while (System.in.read() >= 0) {
                        Thread.onSpinWait();
                    }
                    System.out.println("ECHOED " + responder.messages());
                }
                return;
            }
        }
        throw new IllegalArgumentException("transport=" + args[0] + " not registered");
    }
}
