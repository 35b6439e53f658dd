package dev.peregrine.bench.stat;

/**
 * One Peregrine counter of a benchmark's responder at the end of a run.
 *
 * @param type the counter's name, e.g. {@code peregrine_tcp_back_pressure_events_total}
 * @param label which instance, e.g. {@code transport=tcp-1 channel=3 remote=/127.0.0.1:50000}
 * @param value its value
 */
public record RunCounter(String type, String label, long value) {
}
