package dev.peregrine.internal;

import dev.peregrine.handoff.ReactorCommandRing;
import dev.peregrine.handoff.WorkerRing;
import dev.peregrine.reactor.Reactor;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.ClassLayout;
import org.openjdk.jol.info.FieldLayout;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The padded classes keep each thread's hot fields 128 bytes (two cache lines: the adjacent-line prefetcher pulls
 * pairs) from the other thread's fields, from the shared final fields and from the object's start, where the
 * previous object in the heap ends. The JVM lays a subclass's small fields into holes of its superclasses' layout:
 * padded with {@code long}s, the 4-byte hole after the 12-byte object header took the producer's {@code int} counter
 * (and the reactor's {@code sleeping} flag), on the line of whatever object preceded it in memory, which made
 * {@code bench handoff}'s one-producer throughput swing threefold with where the objects fell. Padded with bytes, no
 * hole is left. The offsets are the running JVM's, read by JOL.
 */
class FieldPaddingTest {
    private static final int PAD = 128;

    @Test
    void workerRingProducerAndConsumerFieldsAreTwoLinesApart() {
        assertApart(WorkerRing.class, List.of(Set.of("WorkerRingProducerFields"), Set.of("WorkerRingConsumerFields"),
            Set.of("WorkerRing")));
    }

    @Test
    void commandRingReactorFieldsAreTwoLinesFromTheProducers() {
        assertApart(ReactorCommandRing.class, List.of(Set.of("CommandRingReactorFields"), Set.of("ReactorCommandRing")));
    }

    @Test
    void commandRingDispatcherFieldsAreTwoLinesFromItsFinalFieldsAndTheObjectsStart() throws Exception {
        // package-private in dev.peregrine.handoff: made after the ring's segment, whose fields producers read
        assertApart(Class.forName("dev.peregrine.handoff.CommandRingDispatcher"),
            List.of(Set.of("CommandRingDispatcherFields"), Set.of("CommandRingDispatcher")));
    }

    @Test
    void reactorSleepingFlagIsTwoLinesFromTheReactorsOwnFields() {
        assertApart(Reactor.class, List.of(Set.of("ReactorSleepFields"), Set.of("Reactor")));
    }

    @Test
    void mpscQueueProducerAndConsumerFieldsAreTwoLinesApart() {
        assertApart(MpscArrayQueue.class, List.of(Set.of("MpscProducerFields"), Set.of("MpscConsumerFields"),
            Set.of("MpscArrayQueue")));
    }

    /**
     * Every field of a group lies at least {@link #PAD} bytes from every field of another group, and the first group
     * at least {@link #PAD} bytes past the object's header.
     */
    private static void assertApart(final Class<?> type, final List<Set<String>> groups) {
        final ClassLayout layout = ClassLayout.parseClass(type);
        final List<FieldLayout> fields = layout.fields().stream().filter(f -> !f.name().matches("p\\d_\\p{XDigit}{2}"))
            .toList();
        final String picture = layout.toPrintable();
        for (int g = 0; g < groups.size(); g++) {
            final List<FieldLayout> group = members(fields, groups.get(g));
            assertThat(group).as("fields declared in %s%n%s", groups.get(g), picture).isNotEmpty();
            if (g == 0) {
                for (final FieldLayout field : group) {
                    assertThat(field.offset()).as("%s from the object's start%n%s", field.name(), picture)
                        .isGreaterThanOrEqualTo(layout.headerSize() + PAD);
                }
            }
            for (int h = g + 1; h < groups.size(); h++) {
                for (final FieldLayout a : group) {
                    for (final FieldLayout b : members(fields, groups.get(h))) {
                        final long gap = a.offset() < b.offset() ? b.offset() - (a.offset() + a.size())
                            : a.offset() - (b.offset() + b.size());
                        assertThat(gap).as("bytes between %s and %s%n%s", a.name(), b.name(), picture)
                            .isGreaterThanOrEqualTo(PAD);
                    }
                }
            }
        }
    }

    private static List<FieldLayout> members(final List<FieldLayout> fields, final Set<String> classes) {
        return fields.stream().filter(f -> classes.contains(f.hostClass().substring(f.hostClass().lastIndexOf('.') + 1)))
            .toList();
    }
}
