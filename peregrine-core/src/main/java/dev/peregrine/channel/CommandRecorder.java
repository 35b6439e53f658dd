package dev.peregrine.channel;

import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link Transport} decorator that records every command the application issues, with the result
 * the real transport returned, as {@link ChannelCommand} values. Give it to the application on a real
 * run; compare its recording with the commands the same application issues when replayed against a
 * {@link ScriptedTransport}.
 *
 * <p>Recording allocates per command: a testing and diagnosis tool. Not thread-safe.
 */
public final class CommandRecorder implements Transport {
    private final Transport delegate;
    private final List<ChannelCommand> commands = new ArrayList<>();

    /**
     * Wraps a transport.
     *
     * @param delegate the real transport
     */
    public CommandRecorder(final Transport delegate) {
        if (delegate == null) {
            throw new IllegalArgumentException("delegate=null");
        }
        this.delegate = delegate;
    }

    /**
     * The commands so far, in order, with their results.
     *
     * @return a copy of the recording
     */
    public List<ChannelCommand> commands() {
        return List.copyOf(commands);
    }

    @Override
    public long listen(final SocketAddress localAddress) {
        final long result = delegate.listen(localAddress);
        commands.add(new ChannelCommand.Listen(localAddress, result));
        return result;
    }

    @Override
    public long connect(final SocketAddress remoteAddress) {
        final long result = delegate.connect(remoteAddress);
        commands.add(new ChannelCommand.Connect(remoteAddress, result));
        return result;
    }

    @Override
    public long send(final long channelId, final MemorySegment buffer, final long offset, final int length) {
        // copy before sending: the buffer may be reused by the time the call returns
        final byte[] bytes = ChannelCommand.Send.copy(buffer, offset, length);
        final int index = commands.size();
        commands.add(null); // keeps the command's place if sending triggers nested commands
        final long result;
        try {
            result = delegate.send(channelId, buffer, offset, length);
        } catch (final RuntimeException | Error ex) {
            commands.remove(index); // refused with an exception, not a result: nothing to replay
            throw ex;
        }
        commands.set(index, new ChannelCommand.Send(channelId, bytes, result));
        return result;
    }

    @Override
    public void close(final long id) {
        commands.add(new ChannelCommand.Close(id));
        delegate.close(id);
    }

    /**
     * Records the abort and aborts on the real transport: an abort, not the close that {@link Transport#abort}'s
     * default would turn it into, so that recording a run does not change what it does.
     */
    @Override
    public void abort(final long id) {
        commands.add(new ChannelCommand.Abort(id));
        delegate.abort(id);
    }

    @Override
    public void close() {
        commands.add(new ChannelCommand.CloseAll());
        delegate.close();
    }
}
