/**
 * Implementation details; not exported by the module and not API.
 */
package dev.peregrine.internal;
