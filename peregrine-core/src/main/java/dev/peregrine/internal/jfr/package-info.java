/**
 * JDK Flight Recorder events for the rare things a Peregrine process does; not exported, not API: the
 * events are read through JFR ({@code jfr print --events 'dev.peregrine.*' rec.jfr}, JDK Mission Control,
 * {@code jdk.jfr.consumer.RecordingFile}), never through these classes.
 *
 * <table>
 *   <caption>The events</caption>
 *   <tr><th>Name</th><th>When</th><th>Fields</th></tr>
 *   <tr><td>{@code dev.peregrine.ChannelOpened}</td><td>a TCP or shared-memory channel connected or was
 *     accepted</td><td>transport, channelId, serverId (0 for a client), remoteAddress</td></tr>
 *   <tr><td>{@code dev.peregrine.ChannelClosed}</td><td>such a channel closed (with the reason and detail
 *     {@code onClosed} got)</td><td>transport, channelId, remoteAddress, reason, detail, bytesDiscarded</td></tr>
 *   <tr><td>{@code dev.peregrine.BackPressure}</td><td>a duration event: from the first send a TCP channel
 *     refused with {@code BACK_PRESSURED} until its outbound buffer drained or it closed</td><td>transport,
 *     channelId, remoteAddress, outboundCapacity, refusedSends, endedBy ({@code drained}, {@code closed})</td></tr>
 *   <tr><td>{@code dev.peregrine.FrameRejected}</td><td>a malformed or over-long TCP frame (the channel closes),
 *     a truncated UDP datagram, a malformed MoldUDP64 packet (dropped)</td><td>transport, channelId,
 *     remoteAddress, localAddress, reason</td></tr>
 *   <tr><td>{@code dev.peregrine.MoldGapDetected}</td><td>a MoldUDP64 feed packet started past the next
 *     expected message</td><td>feed, fromSequence, count</td></tr>
 *   <tr><td>{@code dev.peregrine.MoldGapFilled}</td><td>a gap was filled</td><td>feed, fromSequence, count,
 *     recoveryNanos</td></tr>
 *   <tr><td>{@code dev.peregrine.MoldGapUnrecoverable}</td><td>a gap was given up</td><td>feed, fromSequence,
 *     count, reason</td></tr>
 *   <tr><td>{@code dev.peregrine.ShmPeerLost}</td><td>a shared-memory peer closed or died</td><td>channelId,
 *     remoteAddress, orderly</td></tr>
 *   <tr><td>{@code dev.peregrine.LongDutyCycle}</td><td>a reactor cycle that did work took longer than
 *     {@code ReactorOptions.longCycleThresholdNs} (default 1 ms, 0 = never)</td><td>reactor, cycleDuration,
 *     threshold, work</td></tr>
 * </table>
 *
 * <p>At no cost when no recording wants them: each class keeps one probe instance, and its static
 * {@code emit} asks the probe's {@link jdk.jfr.Event#isEnabled()} (JFR's instrumented check of a static
 * setting, no allocation) before it makes and commits an event. A probe rather than a cached
 * {@link jdk.jfr.EventType}: {@code EventType.getEventType} starts the flight recorder's metadata machinery,
 * which costs every process that never records about a second at startup; the probe's check costs nothing
 * until a recording starts. The call sites pass what they already hold (ids, addresses, enums, the detail
 * string they built for the handler); text is made only inside {@code emit}, once a recording wants it.
 * Stack traces are off: these events say where by their fields.
 *
 * <p>Thread-safe: the probes are only read; each event object belongs to the thread that made it.
 */
package dev.peregrine.internal.jfr;
