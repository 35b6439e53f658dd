package dev.peregrine.counters;

/**
 * The kinds of counter Peregrine keeps, each with a type id stored in the file, a metric name and a
 * one-line help text. A <em>gauge</em> is a level (it goes up and down); every other type only grows.
 */
public final class CounterTypes {
    /** Reactor: duty cycles run. */
    public static final int REACTOR_DUTY_CYCLES = 1;
    /** Reactor: work done (commands, ready channels, timers, pollables' work). */
    public static final int REACTOR_WORK = 2;
    /** Reactor: longest cycle that did work, in nanoseconds (from its start to the next cycle's). */
    public static final int REACTOR_LONGEST_CYCLE_NS = 3;
    /** Reactor: nanoseconds spent in cycles that found no work and in the idle strategy after them. */
    public static final int REACTOR_IDLE_NS = 4;

    /** TCP: bytes received. */
    public static final int TCP_BYTES_IN = 10;
    /** TCP: bytes written to sockets. */
    public static final int TCP_BYTES_OUT = 11;
    /** TCP: frames delivered to the handler. */
    public static final int TCP_MESSAGES_IN = 12;
    /** TCP: frames queued for sending. */
    public static final int TCP_MESSAGES_OUT = 13;
    /** TCP: sends refused with BACK_PRESSURED. */
    public static final int TCP_BACK_PRESSURE_EVENTS = 14;
    /** TCP: nanoseconds channels spent with reading paused. */
    public static final int TCP_PAUSED_READING_NS = 15;
    /** TCP: frames rejected (the label says why); the channel is closed. */
    public static final int TCP_FRAMES_REJECTED = 16;
    /** TCP: connections accepted. */
    public static final int TCP_CONNECTIONS_ACCEPTED = 17;
    /** TCP: connections closed (the label says why). */
    public static final int TCP_CONNECTIONS_CLOSED = 18;
    /** TCP: connections open now (gauge). */
    public static final int TCP_CONNECTIONS_OPEN = 19;

    /** UDP: datagrams received. */
    public static final int UDP_DATAGRAMS_IN = 30;
    /** UDP: datagrams sent. */
    public static final int UDP_DATAGRAMS_OUT = 31;
    /** UDP: datagrams not sent (the socket's buffer was full). */
    public static final int UDP_DROPS = 32;
    /** UDP: datagrams received longer than the receive buffer, cut. */
    public static final int UDP_TRUNCATED = 33;

    /** MoldUDP64 subscriber: the next sequence number expected (gauge). */
    public static final int MOLD_NEXT_EXPECTED = 40;
    /** MoldUDP64 subscriber: gaps detected. */
    public static final int MOLD_GAPS = 41;
    /** MoldUDP64 subscriber: retransmission requests sent. */
    public static final int MOLD_REQUESTS = 42;
    /** MoldUDP64 subscriber: messages recovered by retransmission. */
    public static final int MOLD_RECOVERED = 43;
    /** MoldUDP64 subscriber: messages received more than once. */
    public static final int MOLD_DUPLICATES = 44;
    /** MoldUDP64 subscriber: packets refused as malformed. */
    public static final int MOLD_MALFORMED = 45;
    /** MoldUDP64 subscriber: its state, the ordinal of {@code MoldUDP64SubscriberState} (gauge). */
    public static final int MOLD_STATE = 46;
    /** MoldUDP64 subscriber: datagrams on its request socket dropped as not from the request server. */
    public static final int MOLD_ANSWERS_FROM_STRANGERS = 47;
    /** MoldUDP64 request server: requests received. */
    public static final int MOLD_SERVER_REQUESTS = 50;
    /** MoldUDP64 request server: requests not answered because of the rate limit. */
    public static final int MOLD_SERVER_RATE_LIMITED = 51;
    /** MoldUDP64 request server: messages sent again. */
    public static final int MOLD_SERVER_RETRANSMITTED = 52;

    /** Shared memory: bytes waiting in the outbound ring (gauge). */
    public static final int SHM_RING_OCCUPANCY = 60;
    /** Shared memory: wake-ups of a sleeping reader. */
    public static final int SHM_WAKE_UPS = 61;
    /** Shared memory: futex waits of this side's reader. */
    public static final int SHM_FUTEX_WAITS = 62;
    /** Shared memory: channels whose peer is alive (gauge). */
    public static final int SHM_PEERS_ALIVE = 63;
    /**
     * Shared memory: channels closed for their peer's fault (a corrupt ring, a ring file shrunk under the mapping,
     * a ring that kept filling after its peer went).
     */
    public static final int SHM_PEER_FAULTS = 64;

    /** SoupBinTCP server: logins answered with Login Accepted. */
    public static final int SOUP_LOGINS_ACCEPTED = 70;
    /** SoupBinTCP server: logins answered with Login Rejected (the label gives the code). */
    public static final int SOUP_LOGINS_REJECTED = 71;
    /** SoupBinTCP server: client connections closed (the label says why). */
    public static final int SOUP_CONNECTIONS_CLOSED = 72;
    /** SoupBinTCP server: Sequenced Data sent live, inside the publish that made the message. */
    public static final int SOUP_SEQUENCED_LIVE = 73;
    /** SoupBinTCP server: Sequenced Data sent from the store (replay, or a client catching up). */
    public static final int SOUP_SEQUENCED_REPLAYED = 74;
    /** SoupBinTCP server: Unsequenced Data received from logged-in clients. */
    public static final int SOUP_UNSEQUENCED_RECEIVED = 75;
    /** SoupBinTCP server: Server Heartbeats sent. */
    public static final int SOUP_HEARTBEATS_SENT = 76;
    /** SoupBinTCP server: Client Heartbeats received. */
    public static final int SOUP_HEARTBEATS_RECEIVED = 77;
    /** SoupBinTCP server: connections closed for silence (the label says which: login or receive). */
    public static final int SOUP_TIMEOUTS = 78;
    /** SoupBinTCP server: clients logged in now (gauge). */
    public static final int SOUP_CLIENTS = 79;
    /** Broadcast log reader: records it missed by being lapped ({@code DROP}), exactly. */
    public static final int BROADCAST_MISSED = 80;
    /** Broadcast log reader: times it was lapped ({@code DROP}). */
    public static final int BROADCAST_LAPS = 81;
    /**
     * Broadcast log evictions ({@code BLOCK}): on a writer, the readers it evicted; on a reader, the times it found
     * itself evicted.
     */
    public static final int BROADCAST_EVICTIONS = 82;

    private CounterTypes() {
    }

    /**
     * The metric name of a type, in OpenMetrics form ({@code peregrine_...}; a counter's ends in
     * {@code _total}).
     *
     * @param typeId the type
     * @return the name, or {@code peregrine_type_<id>_total} for an unknown type (taken for a counter; the id read
     *     as unsigned, since a file may hold any value and a {@code -} is not allowed in a metric name)
     */
    public static String name(final int typeId) {
        return switch (typeId) {
            case REACTOR_DUTY_CYCLES -> "peregrine_reactor_duty_cycles_total";
            case REACTOR_WORK -> "peregrine_reactor_work_total";
            case REACTOR_LONGEST_CYCLE_NS -> "peregrine_reactor_longest_cycle_nanoseconds";
            case REACTOR_IDLE_NS -> "peregrine_reactor_idle_nanoseconds_total";
            case TCP_BYTES_IN -> "peregrine_tcp_bytes_in_total";
            case TCP_BYTES_OUT -> "peregrine_tcp_bytes_out_total";
            case TCP_MESSAGES_IN -> "peregrine_tcp_messages_in_total";
            case TCP_MESSAGES_OUT -> "peregrine_tcp_messages_out_total";
            case TCP_BACK_PRESSURE_EVENTS -> "peregrine_tcp_back_pressure_events_total";
            case TCP_PAUSED_READING_NS -> "peregrine_tcp_paused_reading_nanoseconds_total";
            case TCP_FRAMES_REJECTED -> "peregrine_tcp_frames_rejected_total";
            case TCP_CONNECTIONS_ACCEPTED -> "peregrine_tcp_connections_accepted_total";
            case TCP_CONNECTIONS_CLOSED -> "peregrine_tcp_connections_closed_total";
            case TCP_CONNECTIONS_OPEN -> "peregrine_tcp_connections_open";
            case UDP_DATAGRAMS_IN -> "peregrine_udp_datagrams_in_total";
            case UDP_DATAGRAMS_OUT -> "peregrine_udp_datagrams_out_total";
            case UDP_DROPS -> "peregrine_udp_drops_total";
            case UDP_TRUNCATED -> "peregrine_udp_truncated_total";
            case MOLD_NEXT_EXPECTED -> "peregrine_mold_next_expected_sequence";
            case MOLD_GAPS -> "peregrine_mold_gaps_total";
            case MOLD_REQUESTS -> "peregrine_mold_requests_total";
            case MOLD_RECOVERED -> "peregrine_mold_recovered_total";
            case MOLD_DUPLICATES -> "peregrine_mold_duplicates_total";
            case MOLD_MALFORMED -> "peregrine_mold_malformed_total";
            case MOLD_STATE -> "peregrine_mold_state";
            case MOLD_ANSWERS_FROM_STRANGERS -> "peregrine_mold_answers_from_strangers_total";
            case MOLD_SERVER_REQUESTS -> "peregrine_mold_server_requests_total";
            case MOLD_SERVER_RATE_LIMITED -> "peregrine_mold_server_rate_limited_total";
            case MOLD_SERVER_RETRANSMITTED -> "peregrine_mold_server_retransmitted_total";
            case SHM_RING_OCCUPANCY -> "peregrine_shm_ring_occupancy_bytes";
            case SHM_WAKE_UPS -> "peregrine_shm_wake_ups_total";
            case SHM_FUTEX_WAITS -> "peregrine_shm_futex_waits_total";
            case SHM_PEERS_ALIVE -> "peregrine_shm_peers_alive";
            case SHM_PEER_FAULTS -> "peregrine_shm_peer_faults_total";
            case SOUP_LOGINS_ACCEPTED -> "peregrine_soup_logins_accepted_total";
            case SOUP_LOGINS_REJECTED -> "peregrine_soup_logins_rejected_total";
            case SOUP_CONNECTIONS_CLOSED -> "peregrine_soup_connections_closed_total";
            case SOUP_SEQUENCED_LIVE -> "peregrine_soup_sequenced_live_total";
            case SOUP_SEQUENCED_REPLAYED -> "peregrine_soup_sequenced_replayed_total";
            case SOUP_UNSEQUENCED_RECEIVED -> "peregrine_soup_unsequenced_received_total";
            case SOUP_HEARTBEATS_SENT -> "peregrine_soup_heartbeats_sent_total";
            case SOUP_HEARTBEATS_RECEIVED -> "peregrine_soup_heartbeats_received_total";
            case SOUP_TIMEOUTS -> "peregrine_soup_timeouts_total";
            case SOUP_CLIENTS -> "peregrine_soup_clients";
            case BROADCAST_MISSED -> "peregrine_broadcast_missed_total";
            case BROADCAST_LAPS -> "peregrine_broadcast_laps_total";
            case BROADCAST_EVICTIONS -> "peregrine_broadcast_evictions_total";
            default -> "peregrine_type_" + Integer.toUnsignedString(typeId) + "_total";
        };
    }

    /**
     * Whether a type is a gauge (a level) rather than a counter (only grows).
     *
     * @param typeId the type
     * @return true for a gauge
     */
    public static boolean isGauge(final int typeId) {
        return typeId == REACTOR_LONGEST_CYCLE_NS || typeId == TCP_CONNECTIONS_OPEN || typeId == MOLD_NEXT_EXPECTED
            || typeId == MOLD_STATE || typeId == SHM_RING_OCCUPANCY || typeId == SHM_PEERS_ALIVE || typeId == SOUP_CLIENTS;
    }

    /**
     * A one-line description of a type.
     *
     * @param typeId the type
     * @return the description
     */
    public static String help(final int typeId) {
        return switch (typeId) {
            case REACTOR_DUTY_CYCLES -> "Reactor duty cycles run.";
            case REACTOR_WORK -> "Work done by the reactor: commands, ready channels, timers, pollables' work.";
            case REACTOR_LONGEST_CYCLE_NS -> "Longest reactor cycle that did work, in nanoseconds.";
            case REACTOR_IDLE_NS -> "Nanoseconds the reactor spent in cycles without work.";
            case TCP_BYTES_IN -> "TCP bytes received.";
            case TCP_BYTES_OUT -> "TCP bytes written to sockets.";
            case TCP_MESSAGES_IN -> "TCP frames delivered to the handler.";
            case TCP_MESSAGES_OUT -> "TCP frames queued for sending.";
            case TCP_BACK_PRESSURE_EVENTS -> "TCP sends refused as back-pressured.";
            case TCP_PAUSED_READING_NS -> "Nanoseconds TCP channels spent with reading paused.";
            case TCP_FRAMES_REJECTED -> "TCP frames rejected, by reason; the channel was closed.";
            case TCP_CONNECTIONS_ACCEPTED -> "TCP connections accepted.";
            case TCP_CONNECTIONS_CLOSED -> "TCP connections closed, by reason.";
            case TCP_CONNECTIONS_OPEN -> "TCP connections open.";
            case UDP_DATAGRAMS_IN -> "UDP datagrams received.";
            case UDP_DATAGRAMS_OUT -> "UDP datagrams sent.";
            case UDP_DROPS -> "UDP datagrams not sent because the socket buffer was full.";
            case UDP_TRUNCATED -> "UDP datagrams received longer than the receive buffer.";
            case MOLD_NEXT_EXPECTED -> "MoldUDP64 next sequence number expected.";
            case MOLD_GAPS -> "MoldUDP64 gaps detected.";
            case MOLD_REQUESTS -> "MoldUDP64 retransmission requests sent.";
            case MOLD_RECOVERED -> "MoldUDP64 messages recovered by retransmission.";
            case MOLD_DUPLICATES -> "MoldUDP64 messages received more than once.";
            case MOLD_MALFORMED -> "MoldUDP64 packets refused as malformed.";
            case MOLD_STATE -> "MoldUDP64 subscriber state: 0 synchronised, 1 recovering, 2 end of session, 3 unrecoverable.";
            case MOLD_ANSWERS_FROM_STRANGERS -> "MoldUDP64 datagrams on the request socket dropped as not from the request server.";
            case MOLD_SERVER_REQUESTS -> "MoldUDP64 retransmission requests received.";
            case MOLD_SERVER_RATE_LIMITED -> "MoldUDP64 requests not answered because of the rate limit.";
            case MOLD_SERVER_RETRANSMITTED -> "MoldUDP64 messages sent again.";
            case SHM_RING_OCCUPANCY -> "Bytes waiting in the outbound shared-memory rings.";
            case SHM_WAKE_UPS -> "Wake-ups of a sleeping shared-memory reader.";
            case SHM_FUTEX_WAITS -> "Futex waits of this side's shared-memory readers.";
            case SHM_PEERS_ALIVE -> "Shared-memory channels whose peer is alive.";
            case SHM_PEER_FAULTS -> "Shared-memory channels closed for a fault of their peer: corrupt ring, ring file "
                + "shrunk, ring still filling after the peer went.";
            case SOUP_LOGINS_ACCEPTED -> "SoupBinTCP logins accepted.";
            case SOUP_LOGINS_REJECTED -> "SoupBinTCP logins rejected, by code: not authorized (A), session not available (S).";
            case SOUP_CONNECTIONS_CLOSED -> "SoupBinTCP client connections closed, by reason.";
            case SOUP_SEQUENCED_LIVE -> "SoupBinTCP sequenced messages sent live, as they were published.";
            case SOUP_SEQUENCED_REPLAYED -> "SoupBinTCP sequenced messages sent from the store (replay, catching up).";
            case SOUP_UNSEQUENCED_RECEIVED -> "SoupBinTCP unsequenced messages received from clients.";
            case SOUP_HEARTBEATS_SENT -> "SoupBinTCP server heartbeats sent.";
            case SOUP_HEARTBEATS_RECEIVED -> "SoupBinTCP client heartbeats received.";
            case SOUP_TIMEOUTS -> "SoupBinTCP connections closed for silence: no login in time, or the receive timeout.";
            case SOUP_CLIENTS -> "SoupBinTCP clients logged in.";
            case BROADCAST_MISSED -> "Broadcast log records a reader missed by being lapped (DROP).";
            case BROADCAST_LAPS -> "Times a broadcast log reader was lapped (DROP).";
            case BROADCAST_EVICTIONS -> "Broadcast log evictions (BLOCK): readers a writer evicted, or a reader's"
                + " own eviction.";
            default -> "Counter of type " + typeId + ".";
        };
    }
}
