package dev.peregrine.counters;

import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;

import java.io.IOException;

/**
 * The other JVM of {@link CountersTwoProcessTest}: a reactor on its own thread with the process-wide counters
 * (the directory comes from {@code -Dperegrine.counters.dir}); prints "ready" and the file, then runs until a
 * byte arrives on its standard input or the input ends (the parent's test kills it otherwise), and closes the
 * reactor, which removes the file.
 */
public final class CountersPeerProcess {
    private CountersPeerProcess() {
    }

    /**
     * Runs the peer.
     *
     * @param args none
     * @throws IOException if standard input fails
     */
    public static void main(final String[] args) throws IOException {
        try (Reactor reactor = new Reactor(new ReactorOptions().name("counters-peer"))) {
            reactor.start();
            System.out.println("ready " + reactor.counters().file());
            System.out.flush();
            System.in.read();
        }
    }
}
