/**
 * Aeron ({@code io.aeron:aeron-all}) over IPC and over UDP, with its media driver embedded in the responder's
 * (or stream receiver's) process in {@code BenchConfig.directory()/aeron}, configured the way Aeron's own
 * low-latency samples do for a small machine; the client side only connects to that driver.
 *
 * <p>Messages travel on two stream ids, {@value dev.peregrine.peers.aeron.AeronDriverSettings#PING_STREAM_ID}
 * (client to responder) and {@value dev.peregrine.peers.aeron.AeronDriverSettings#PONG_STREAM_ID} (back), and the
 * one-way stream on {@value dev.peregrine.peers.aeron.AeronDriverSettings#STREAM_STREAM_ID}.
 *
 * <p>Threading: the responder polls on a thread of its own; a client, sender or receiver is used by one
 * thread (Aeron's client conductor runs on a thread of its own, sleeping between duties).
 */
package dev.peregrine.peers.aeron;
