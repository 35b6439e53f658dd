package dev.peregrine.peers.handoff;

import java.util.List;

/** The peers {@code bench handoff} measures, in the order of its table. */
public final class PeerHandoffs {
    private PeerHandoffs() {
    }

    /**
     * Every peer, a new instance of each.
     *
     * @return the Disruptor, Agrona's two rings, JCTools, ArrayBlockingQueue
     */
    public static List<HandoffImplementation> all() {
        return List.of(new DisruptorHandoff(), new AgronaHandoff(false), new AgronaHandoff(true),
            new JctoolsHandoff(), new ArrayBlockingQueueHandoff());
    }
}
