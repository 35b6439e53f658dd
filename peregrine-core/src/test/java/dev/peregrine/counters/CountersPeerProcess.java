package dev.peregrine.counters;

import dev.peregrine.reactor.Reactor;
import dev.peregrine.reactor.ReactorOptions;

import java.io.IOException;
import java.lang.foreign.ValueLayout;

/**
 * The other JVM of {@link CountersTwoProcessTest}: a reactor on its own thread with the process-wide counters
 * (the directory comes from {@code -Dperegrine.counters.dir}); given a pid, writes it into its file's header as a
 * process of another pid namespace would read here; prints "ready" and the file, then runs until a
 * byte arrives on its standard input or the input ends (the parent's test kills it otherwise), and closes the
 * reactor, which removes the file.
 */
public final class CountersPeerProcess {
    private CountersPeerProcess() {
    }

    /**
     * Runs the peer.
     *
     * @param args nothing, or the pid its header is to carry
     * @throws IOException if standard input fails
     */
    public static void main(final String[] args) throws IOException {
        try (Reactor reactor = new Reactor(new ReactorOptions().name("counters-peer"))) {
            reactor.start();
            if (args.length > 0) {
                reactor.counters().segment().set(ValueLayout.JAVA_LONG_UNALIGNED, CountersDescriptor.PID_OFFSET,
                    Long.parseLong(args[0]));
            }
            System.out.println("ready " + reactor.counters().file());
            System.out.flush();
            System.in.read();
        }
    }
}
