/**
 * A sample application on Peregrine: a TCP echo and a shared-memory echo between two processes.
 */
module dev.peregrine.samples.echo {
    requires dev.peregrine.core;
}
