/**
 * UDP on the reactor: unicast and multicast endpoints.
 *
 * <p>Threading: not thread-safe; one reactor thread owns an endpoint.
 */
package dev.peregrine.udp;
