package dev.peregrine.bench.run;

/**
 * What the responder side reports about itself: messages echoed, bytes its threads allocated, and (for a
 * responder in its own JVM) that JVM's JIT and GC counters. Unknown values are -1.
 *
 * @param messages messages echoed so far, all responders together
 * @param allocatedBytes bytes allocated so far by the responder threads, or -1
 * @param runtime JIT and GC counters of the responder's JVM, {@link RuntimeCounters#UNKNOWN} if it shares ours
 */
public record ResponderStats(long messages, long allocatedBytes, RuntimeCounters runtime) {
    /**
     * Parses the child's {@code STATS key=value ...} line.
     *
     * @param line the line
     * @return the values
     * @throws IllegalArgumentException if the line is not a STATS line
     */
    public static ResponderStats parse(final String line) {
        if (line == null || !line.startsWith("STATS")) {
            throw new IllegalArgumentException("line=" + line + " is not a STATS line");
        }
        long messages = -1;
        long allocated = -1;
        long jit = -1;
        long gcCount = -1;
        long gcMillis = -1;
        for (final String field : line.substring("STATS".length()).trim().split("\\s+")) {
            final int eq = field.indexOf('=');
            if (eq <= 0) {
                continue;
            }
            final String key = field.substring(0, eq);
            final long value;
            try {
                value = Long.parseLong(field.substring(eq + 1));
            } catch (final NumberFormatException ex) {
                throw new IllegalArgumentException("field=" + field + " in line=" + line, ex);
            }
            switch (key) {
                case "messages" -> messages = value;
                case "allocated" -> allocated = value;
                case "jit_ms" -> jit = value;
                case "gc_count" -> gcCount = value;
                case "gc_ms" -> gcMillis = value;
                default -> {
                    // newer children may report more; ignore what we do not know
                }
            }
        }
        return new ResponderStats(messages, allocated, new RuntimeCounters(jit, gcCount, gcMillis));
    }

    /**
     * The line a child prints for these values.
     *
     * @return {@code STATS messages=.. allocated=.. jit_ms=.. gc_count=.. gc_ms=..}
     */
    public String toLine() {
        return "STATS messages=" + messages + " allocated=" + allocatedBytes + " jit_ms=" + runtime.jitMillis()
            + " gc_count=" + runtime.gcCount() + " gc_ms=" + runtime.gcMillis();
    }
}
