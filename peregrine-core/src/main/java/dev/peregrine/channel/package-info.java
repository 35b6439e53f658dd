/**
 * The message-driven API shared by every transport.
 *
 * <p>An application receives events through a {@link dev.peregrine.channel.ChannelHandler} (listening,
 * accepted, connected, connect failed, message, sent, closed with a {@link dev.peregrine.channel.CloseReason})
 * and issues commands through a {@link dev.peregrine.channel.Transport} (listen, connect, send, close).
 * Channels are named by {@code long} ids, never by objects, so that a run can be recorded and replayed
 * without sockets ({@link dev.peregrine.channel.EventRecorder}).
 *
 * <p>Threading: not thread-safe. Every event is delivered on the reactor thread that owns the
 * transport, and every command must be issued on that thread (from inside a handler, or on the reactor thread
 * between cycles). From another thread, the way in is a {@link dev.peregrine.handoff.ReactorCommandRing}: sends,
 * closes and aborts encoded in place in off-heap memory, no allocation, and carried out by the reactor with the
 * transport's own methods. {@link dev.peregrine.reactor.Reactor#execute(Runnable)} stays for rare work (a lambda per
 * hand-over). Message views ({@code buffer, offset, length}) are valid only for the duration of the callback.
 */
package dev.peregrine.channel;
