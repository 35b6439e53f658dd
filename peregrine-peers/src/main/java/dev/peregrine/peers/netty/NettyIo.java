package dev.peregrine.peers.netty;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.nio.channels.spi.SelectorProvider;

/**
 * Chooses Netty's I/O flavour once: native epoll if it loads on this machine, else the JDK's NIO.
 */
final class NettyIo {
    /** Whether the native epoll transport is used. */
    static final boolean EPOLL = Epoll.isAvailable();

    /**
     * A strategy that never blocks: every loop iteration polls the kernel with a zero timeout and runs tasks,
     * Netty's way to busy-poll while still seeing tasks (its BUSY_WAIT spins natively and ignores tasks).
     */
    private static final SelectStrategyFactory POLL_NOW = () -> (selectNow, hasTasks) -> selectNow.get();
    private static final SelectStrategyFactory DEFAULT = () -> (selectNow, hasTasks) ->
        hasTasks ? selectNow.get() : SelectStrategy.SELECT;

    private NettyIo() {
    }

    static IoHandlerFactory handlerFactory(final boolean busyPoll) {
        final SelectStrategyFactory strategy = busyPoll ? POLL_NOW : DEFAULT;
        return EPOLL ? EpollIoHandler.newFactory(0, strategy)
            : NioIoHandler.newFactory(SelectorProvider.provider(), strategy);
    }

    static Class<? extends ServerChannel> serverChannel() {
        return EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    static Class<? extends SocketChannel> socketChannel() {
        return EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    static String flavour() {
        return EPOLL ? "native epoll" : "NIO (epoll unavailable: " + Epoll.unavailabilityCause() + ")";
    }
}
