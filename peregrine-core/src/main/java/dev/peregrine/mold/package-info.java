/**
 * MoldUDP64 1.00: publisher, message store, re-request server and subscriber.
 *
 * <p>Threading: not thread-safe; one reactor thread owns each role.
 */
package dev.peregrine.mold;
