package dev.peregrine.channel;

import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link Transport} with no sockets: it records the commands an application issues, as
 * {@link ChannelCommand} values, and answers them from a script. With it and
 * {@link ChannelEvent#replay} an application runs deterministically, on the test's thread, from a
 * scripted event stream or from one recorded on a real run by an {@link EventRecorder}.
 *
 * <p>Answers: in replay mode ({@link #replaying(List)}) the n-th command gets the result the n-th
 * recorded command got on the real run, so ids and back-pressure come out the same; otherwise
 * {@code listen} and {@code connect} return ids 1, 2, 3, ... and {@code send} returns
 * {@link #sendResult(long)} (default 0, all written). It delivers no events itself: events are the
 * script's. Not thread-safe.
 */
public final class ScriptedTransport implements Transport {
    private final List<ChannelCommand> commands = new ArrayList<>();
    private final List<ChannelCommand> recorded;
    private long nextId = 1;
    private long sendResult;

    /**
     * A transport answering with fresh ids and successful sends.
     */
    public ScriptedTransport() {
        this.recorded = null;
    }

    private ScriptedTransport(final List<ChannelCommand> recorded) {
        this.recorded = List.copyOf(recorded);
    }

    /**
     * A transport answering each command with the result recorded on a real run.
     *
     * @param recorded the commands of the real run, e.g. {@link CommandRecorder#commands()}
     * @return the transport
     */
    public static ScriptedTransport replaying(final List<ChannelCommand> recorded) {
        return new ScriptedTransport(recorded);
    }

    /**
     * What later sends return (outside replay mode), e.g. {@link SendResult#BACK_PRESSURED}.
     *
     * @param result the result
     * @return this
     */
    public ScriptedTransport sendResult(final long result) {
        this.sendResult = result;
        return this;
    }

    /**
     * The commands issued so far, in order, with the results given.
     *
     * @return a copy
     */
    public List<ChannelCommand> commands() {
        return List.copyOf(commands);
    }

    @Override
    public long listen(final SocketAddress localAddress) {
        final long result = answer(nextId);
        commands.add(new ChannelCommand.Listen(localAddress, result));
        nextId++;
        return result;
    }

    @Override
    public long connect(final SocketAddress remoteAddress) {
        final long result = answer(nextId);
        commands.add(new ChannelCommand.Connect(remoteAddress, result));
        nextId++;
        return result;
    }

    @Override
    public long send(final long channelId, final MemorySegment buffer, final long offset, final int length) {
        final long result = answer(sendResult);
        commands.add(new ChannelCommand.Send(channelId, ChannelCommand.Send.copy(buffer, offset, length), result));
        return result;
    }

    @Override
    public void close(final long id) {
        commands.add(new ChannelCommand.Close(id));
    }

    @Override
    public void abort(final long id) {
        commands.add(new ChannelCommand.Abort(id));
    }

    @Override
    public void close() {
        commands.add(new ChannelCommand.CloseAll());
    }

    private long answer(final long scripted) {
        if (recorded == null) {
            return scripted;
        }
        final int index = commands.size();
        return index < recorded.size() ? recorded.get(index).result() : scripted;
    }
}
