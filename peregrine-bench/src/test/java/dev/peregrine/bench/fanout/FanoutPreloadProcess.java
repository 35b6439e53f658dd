package dev.peregrine.bench.fanout;

/**
 * A child JVM for {@link FanoutPreloadTest}: initialises one class, as a run does before its measured window, and
 * prints {@code INITIALISED}; the test reads the JVM's class loading and initialisation log before that line.
 * Argument: the class's name.
 */
final class FanoutPreloadProcess {
    private FanoutPreloadProcess() {
    }

    public static void main(final String[] args) throws ClassNotFoundException {
        Class.forName(args[0], true, FanoutPreloadProcess.class.getClassLoader());
        System.out.println("INITIALISED");
    }
}
