package dev.peregrine.peers.netty;

import dev.peregrine.peers.BenchConfig;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ManualIoEventLoop;
import io.netty.util.concurrent.Future;

import java.util.concurrent.TimeUnit;

/**
 * Connecting a client channel whose event loop will be driven by whichever thread uses it first.
 *
 * <p>{@link #connect} connects on a {@link ManualIoEventLoop} driven by the connecting thread and then
 * deregisters the channel; {@link #bind} registers it with a loop owned by the calling thread. A
 * {@code ManualIoEventLoop}'s owner is fixed once set, and the SPI does not promise that the thread that
 * connects is the thread that sends.
 */
final class NettyChannels {
    /** Bound on every wait for Netty (connect, register, shutdown). */
    static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);

    private NettyChannels() {
    }

    static Channel connect(final BenchConfig config, final IoHandlerFactory factory, final ChannelHandler handler) {
        final ManualIoEventLoop connectLoop = new ManualIoEventLoop(Thread.currentThread(), factory);
        try {
            final ChannelFuture connected = new Bootstrap()
                .group(connectLoop)
                .channel(NettyIo.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .handler(handler)
                .connect(config.host(), config.port());
            await(connectLoop, connected, "connect to " + config.host() + ":" + config.port());
            final Channel channel = connected.channel();
            await(connectLoop, channel.deregister(), "deregister " + channel);
            return channel;
        } finally {
            shutdown(connectLoop);
        }
    }

    static ManualIoEventLoop bind(final Channel channel, final IoHandlerFactory factory) {
        final ManualIoEventLoop loop = new ManualIoEventLoop(Thread.currentThread(), factory);
        // what Bootstrap does to register a channel; EventLoop.register(Channel) is deprecated in Netty 4.2
        final ChannelPromise registered = channel.newPromise();
        channel.unsafe().register(loop, registered);
        await(loop, registered, "register " + channel);
        return loop;
    }

    static void await(final ManualIoEventLoop loop, final Future<?> future, final String what) {
        final long deadline = System.nanoTime() + TIMEOUT_NS;
        while (!future.isDone()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(what + ": not done after " + TIMEOUT_NS / 1_000_000 + " ms");
            }
            loop.run(TimeUnit.MILLISECONDS.toNanos(1));
        }
        if (!future.isSuccess()) {
            throw new IllegalStateException(what + " failed: " + future.cause(), future.cause());
        }
    }

    /** Shuts a loop down, driving it from the calling thread (its owner) until it has terminated. */
    static void shutdown(final ManualIoEventLoop loop) {
        loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        final long deadline = System.nanoTime() + TIMEOUT_NS;
        while (!loop.isTerminated() && System.nanoTime() - deadline < 0) {
            loop.runNow();
        }
    }
}
