package dev.peregrine.internal.jfr;

import java.net.SocketAddress;

/** Text for event fields, built only once an event is being recorded. */
final class JfrText {
    private JfrText() {
    }

    static String address(final SocketAddress address) {
        return address == null ? null : address.toString();
    }
}
