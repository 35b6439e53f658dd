/**
 * MoldUDP64 1.00 (NASDAQ, 2009): publisher, message store, re-request server and subscriber.
 *
 * <p>{@link dev.peregrine.mold.MoldUDP64Layout} holds the wire layout;
 * {@link dev.peregrine.mold.MoldUDP64Publisher} numbers, records and packs messages;
 * {@link dev.peregrine.mold.MoldUDP64MessageStore} keeps a bounded off-heap (optionally file-backed)
 * window of them; {@link dev.peregrine.mold.MoldUDP64RequestServer} answers re-requests, one packet each,
 * rate-limited per source host; {@link dev.peregrine.mold.MoldUDP64Subscriber} delivers in order exactly once
 * and recovers gaps. Nothing allocates per message in steady state.
 *
 * <p>Threading: not thread-safe; one reactor thread owns each role (a store is shared by the publisher
 * and the re-request server of the same reactor). Every callback runs on that thread.
 *
 * <p>Failures: a {@link dev.peregrine.mold.MoldUDP64Listener} that throws ends its subscriber only
 * ({@link dev.peregrine.mold.MoldUDP64SubscriberState#FAILED}, with the reason, counted, reported to the
 * reactor's {@link dev.peregrine.reactor.ErrorHandler}, sockets released, nothing delivered after it). A
 * {@link dev.peregrine.mold.MoldUDP64PacketFilter} that throws ends its publisher the same way
 * ({@link dev.peregrine.mold.MoldUDP64Publisher#failure()}). The re-request server calls no user code. No
 * exception reaches the reactor's loop; everything else on the reactor goes on.
 */
package dev.peregrine.mold;
