/**
 * Peregrine: low-latency messaging in plain Java.
 *
 * <p>A single-threaded {@link dev.peregrine.reactor.Reactor reactor} drives TCP, UDP, MoldUDP64 and
 * shared-memory channels through one message-driven API ({@link dev.peregrine.channel}). The module
 * depends on {@code java.base} and {@code jdk.jfr} (the JDK's flight recorder, for its events) only,
 * uses no {@code sun.misc.Unsafe}, no {@code jdk.internal} and no JNI; native calls (thread affinity,
 * futex, the native UDP socket) go through the FFM API and need {@code --enable-native-access=dev.peregrine.core} (or
 * {@code ALL-UNNAMED} on the class path) to run without a warning.
 */
module dev.peregrine.core {
    requires jdk.jfr;

    exports dev.peregrine.channel;
    exports dev.peregrine.reactor;
    exports dev.peregrine.tcp;
    exports dev.peregrine.udp;
    exports dev.peregrine.mold;
    exports dev.peregrine.soup;
    exports dev.peregrine.shm;
    exports dev.peregrine.counters;
    exports dev.peregrine.handoff;
    exports dev.peregrine.log;
    exports dev.peregrine.broadcast;
}
