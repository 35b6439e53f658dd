package dev.peregrine.mold;

/**
 * Decides whether the publisher puts a downstream packet on the wire; for demonstrations and tests
 * that simulate loss on the sending side (the messages are still in the store and can be recovered).
 */
@FunctionalInterface
public interface MoldUDP64PacketFilter {
    /** Sends every packet. */
    MoldUDP64PacketFilter SEND_ALL = (sequence, count) -> true;

    /**
     * Whether to send a packet.
     *
     * @param sequence its sequence number
     * @param count its message count ({@link MoldUDP64Layout#HEARTBEAT}, {@link MoldUDP64Layout#END_OF_SESSION} included)
     * @return true to send it, false to drop it
     */
    boolean send(long sequence, int count);
}
