/**
 * Shared-memory channels between processes through memory-mapped single-producer single-consumer rings.
 *
 * <p>Threading: a ring writer is owned by one thread and a ring reader by one (other) thread or process.
 */
package dev.peregrine.shm;
