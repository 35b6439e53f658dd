package dev.peregrine.handoff;

/**
 * A transport that can stop reading one channel and start again, so that a {@link WorkerDemux} passes a full
 * worker's back-pressure on to the peer instead of dropping. {@code TcpTransport} and {@code ShmTransport} are.
 *
 * <p>Reactor thread only, as the transport's other calls.
 */
public interface ReadPausable {
    /**
     * Stops delivering the channel's messages until {@link #resumeReading}; the message being delivered when this is
     * called from {@code onMessage} is the last.
     *
     * @param channelId the channel
     * @return 0, or a negative {@code SendResult} code for a channel that is not connected
     */
    long pauseReading(long channelId);

    /**
     * Delivers the channel's messages again, from a later duty cycle.
     *
     * @param channelId the channel
     * @return 0, or a negative {@code SendResult} code for a channel that is not connected
     */
    long resumeReading(long channelId);
}
