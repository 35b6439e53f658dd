/**
 * TCP on the reactor: servers, clients, framing and back-pressure.
 *
 * <p>Threading: not thread-safe; one reactor thread owns a transport and all its connections.
 */
package dev.peregrine.tcp;
