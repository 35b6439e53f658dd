/**
 * SoupBinTCP 3.00 (NASDAQ): the session layer under ITCH and OUCH over TCP. A
 * {@link dev.peregrine.soup.SoupBinTcpServer} serves numbered sessions ({@link dev.peregrine.soup.SoupBinTcpSession},
 * kept in a {@link dev.peregrine.mold.MoldUDP64MessageStore}, so one store can feed a MoldUDP64 request server
 * too) to many clients, replaying from any sequence number the store holds and then going live with no gap and
 * no repeat; a {@link dev.peregrine.soup.SoupAuthenticator} decides logins. A
 * {@link dev.peregrine.soup.SoupBinTcpClient} logs in, delivers each sequenced message once, in order, and
 * reconnects by itself (back-off with jitter, failover over a list of addresses) at the next sequence number it
 * has not delivered. {@link dev.peregrine.soup.SoupBinTcpLayout} holds the wire layout.
 *
 * <p>Threading: not thread-safe. A server, its sessions and a client each belong to one reactor thread; every
 * method is called and every callback runs on that thread. Time (heartbeats, timeouts, login deadline,
 * reconnect back-off) is the reactor's clock, injectable for tests.
 *
 * <p>Failures: a peer's protocol fault closes that connection only, with {@link dev.peregrine.channel.CloseReason#ERROR}
 * and the reason, and is counted; a handler that throws does the same and is reported to the reactor's
 * {@link dev.peregrine.reactor.ErrorHandler}. No exception reaches the reactor's loop. Nothing allocates per
 * message in steady state.
 */
package dev.peregrine.soup;
