/**
 * TCP on the reactor: servers, clients, framing and back-pressure.
 *
 * <p>{@link dev.peregrine.tcp.TcpTransport} implements the message-driven
 * {@link dev.peregrine.channel.Transport} API over non-blocking socket channels registered with a
 * {@link dev.peregrine.reactor.Reactor}. Messages are framed as {@link dev.peregrine.tcp.TcpOptions}
 * says ({@link dev.peregrine.tcp.Framing}: raw, fixed length, a 1/2/4/8-byte big- or little-endian length
 * field, or a delimiter); there is no other wire protocol and no version to negotiate. Each connection
 * has an off-heap receive buffer, decoded in place, and a bounded off-heap outbound buffer; both are
 * made once per connection slot and reused, so steady-state sending and receiving allocate nothing.
 *
 * <pre>{@code
 * Reactor reactor = new Reactor();
 * TcpTransport tcp = new TcpTransport(reactor, new TcpOptions().framing(Framing.parse("length:4be")), handler);
 * tcp.listen(new InetSocketAddress(9999));         // -> handler.onListening, then onAccepted per client
 * long id = tcp.connect(new InetSocketAddress("localhost", 9999)); // -> onConnected or onConnectFailed
 * tcp.send(id, segment, 0, length);                // >= 0 taken; BACK_PRESSURED: wait for onSent(.., 0)
 * tcp.pauseReading(id);                            // no onMessage until resumeReading(id); TCP holds the peer
 * long at = tcp.tryClaim(id, 8);                   // zero copy: write the payload in place
 * tcp.claimBuffer().set(ValueLayout.JAVA_LONG_UNALIGNED, at, 42L);
 * tcp.commit();
 * reactor.start();                                 // or call reactor.doWork() in a loop of your own
 * }</pre>
 *
 * <p>Threading: not thread-safe; one reactor thread owns a transport and all its connections. Every
 * event is delivered, and every command must be issued, on that thread.
 */
package dev.peregrine.tcp;
