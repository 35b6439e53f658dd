/**
 * Hand-over between the reactor thread and other threads, without garbage.
 *
 * <p>Into the reactor: {@link dev.peregrine.handoff.ReactorCommandRing}. Many producer threads encode commands
 * (send, close, abort) for the channels of the transports registered with it into off-heap memory; the reactor
 * drains them at the start of each duty cycle into the transports' own methods. Its layout is
 * {@link dev.peregrine.handoff.CommandRingDescriptor}.
 *
 * <p>Out of the reactor: {@link dev.peregrine.handoff.WorkerDemux}. It is the transport's handler; it copies each
 * inbound message into the {@link dev.peregrine.handoff.WorkerRing} of the worker its key picks, so each key's
 * messages keep their order, and a channel's open and close travel to the worker of its id. A full worker pauses a
 * {@link dev.peregrine.handoff.ReadPausable} transport's channel (TCP) and drops and counts otherwise (UDP). A
 * {@link dev.peregrine.handoff.WorkerAgent} delivers a ring to the application's
 * {@link dev.peregrine.handoff.WorkerHandler}, on a {@link dev.peregrine.handoff.WorkerRunner} or a thread of the
 * application's own. Its layout is {@link dev.peregrine.handoff.WorkerRingDescriptor}.
 *
 * <p>Both ways at once, for one application thread: a separated stack (AsyncTCP's term). The transport stays on the
 * reactor thread; the application's unchanged {@link dev.peregrine.channel.ChannelHandler} runs on a thread of its
 * own. {@link dev.peregrine.handoff.SeparatedStack} is the transport's handler and encodes every event into a
 * one-to-one {@link dev.peregrine.handoff.WorkerRing}; {@link dev.peregrine.handoff.SeparatedAgent} decodes them on
 * the application thread; the handler's {@link dev.peregrine.handoff.SeparatedTransport} encodes its commands into
 * the command ring, listen and connect included (they wait for the reactor's answer: the id is the transport's).
 * It lives here, not in a package of its own, because it is these two rings put together and reads them through
 * package-private methods that are not API. On a machine without a core for the application thread, {@link dev.peregrine.handoff.SeparatedSleepIdleStrategy}
 * lets it sleep on a futex that the reactor wakes when it hands over an event, instead of yielding.
 *
 * <p>Batches: either ring claims room for many messages of one length at once ({@code tryClaimBatch}); the producer
 * writes them in place and commits ({@link dev.peregrine.handoff.ReactorCommandRing#commit}) or publishes
 * ({@link dev.peregrine.handoff.WorkerRing#publish}) once. A command-ring batch is one record, one claim and one
 * commit for the lot, where single claims pay two compare-and-sets per message; the reactor still hands its
 * messages to the transport one by one.
 *
 * <p>A worker answers through the command ring:
 * <pre>{@code
 * WorkerDemux demux = new WorkerDemux(reactor, 3, 1 << 16, KeyFunction.CHANNEL_ID, null);
 * TcpTransport tcp = new TcpTransport(reactor, options, demux);
 * demux.pauseWith(tcp);
 * ReactorCommandRing commands = new ReactorCommandRing(reactor, new CommandRingOptions());
 * int index = commands.register(tcp);
 * WorkerHandler echo = (channelId, buffer, offset, length) ->
 *     commands.offer(index, channelId, buffer, offset, length); // BACK_PRESSURED: the worker decides
 * new WorkerRunner("worker-0", new WorkerAgent(demux.ring(0), echo, commands, index, errors, 64, 16),
 *     new BackoffIdleStrategy(), -1).start();
 * }</pre>
 *
 * <p>Threading:
 * <ul>
 *   <li>the command ring's producer methods are safe from any thread; its registration, drain and closing belong
 *       to the reactor thread;</li>
 *   <li>the demux is the reactor thread's (its counters may be read anywhere);</li>
 *   <li>a worker ring has one producer, the reactor thread, and one consumer, its worker's thread;</li>
 *   <li>a worker agent belongs to one worker thread;</li>
 *   <li>a separated stack is the reactor thread's; its agent and its transport belong to one application thread (or
 *       to the thread that sets them up before that one starts), and so does its
 *       {@code SeparatedSleepIdleStrategy}, except {@code stop()}, which any thread may call.</li>
 * </ul>
 * Nothing allocates in steady state on either side. The transports stay reactor-thread-only: these rings are the
 * way in and out.
 */
package dev.peregrine.handoff;
