package dev.peregrine.bench.handoff;

import dev.peregrine.peers.handoff.HandoffImplementation;
import dev.peregrine.peers.handoff.PeerHandoffs;

import java.util.ArrayList;
import java.util.List;

/** Every queue {@code bench handoff} knows: Peregrine's two rings first, then the peers. */
public final class Handoffs {
    private Handoffs() {
    }

    /**
     * Every implementation, new instances, in the table's order.
     *
     * @return the implementations
     */
    public static List<HandoffImplementation> all() {
        final List<HandoffImplementation> all = new ArrayList<>();
        all.add(new PeregrineSpscHandoff());
        all.add(new PeregrineMpscHandoff());
        all.addAll(PeerHandoffs.all());
        return all;
    }

    /**
     * The names, in the table's order.
     *
     * @return the names
     */
    public static List<String> names() {
        return all().stream().map(HandoffImplementation::name).toList();
    }

    /**
     * One implementation by name.
     *
     * @param name e.g. {@code disruptor}
     * @return a new instance
     * @throws IllegalArgumentException for an unknown name, with the known ones
     */
    public static HandoffImplementation byName(final String name) {
        for (final HandoffImplementation implementation : all()) {
            if (implementation.name().equals(name)) {
                return implementation;
            }
        }
        throw new IllegalArgumentException("impl=" + name + " is not one of " + String.join(", ", names()));
    }
}
