/**
 * UDP on the reactor: unicast and multicast endpoints.
 *
 * <p>{@link dev.peregrine.udp.UdpEndpoint} is one socket (bind, connect, join/leave groups, TTL and
 * loopback through {@link dev.peregrine.udp.UdpOptions}); it receives into one direct buffer, drains a
 * batch of datagrams per readiness event (or polls every cycle with busy polling), and hands each to a
 * {@link dev.peregrine.udp.DatagramHandler} with the sender's address, allocating nothing.
 * {@link dev.peregrine.udp.UdpTransport} puts endpoints behind the shared
 * {@link dev.peregrine.channel.Transport} / {@link dev.peregrine.channel.ChannelHandler} API, one datagram
 * per message. The JDK cannot send an empty datagram, so a message is at least one byte.
 *
 * <p>Threading: not thread-safe; one reactor thread owns an endpoint. Every callback runs on that thread.
 *
 * <p>Failures: a {@link dev.peregrine.udp.DatagramHandler} (or a transport's
 * {@link dev.peregrine.channel.ChannelHandler}) that throws closes only its own endpoint (channel), with
 * {@link dev.peregrine.channel.CloseReason#ERROR} and the exception in the detail; its socket is released,
 * nothing is handed on after the close (not even the rest of the batch already read), the failure is counted
 * ({@code handlerFailures()}) and reported to the reactor's {@link dev.peregrine.reactor.ErrorHandler}. The
 * exception never reaches the reactor's loop; every other endpoint goes on.
 */
package dev.peregrine.udp;
