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
 * <p>Threading: not thread-safe; one reactor thread owns an endpoint.
 */
package dev.peregrine.udp;
