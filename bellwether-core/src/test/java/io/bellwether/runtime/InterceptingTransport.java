package io.bellwether.runtime;

import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.spi.Transport;
import io.bellwether.spi.TransportListener;

/**
 * A transport that passes everything through to another one and lets a test decide, per inbound message, when (or
 * whether) its member receives it: to count messages, or to hold them back and release them late.
 */
abstract class InterceptingTransport implements Transport {
    private final Transport delegate;

    InterceptingTransport(Transport delegate) {
        this.delegate = delegate;
    }

    /** An inbound {@code message}; running {@code delivery} hands it to the member. */
    abstract void received(NodeId from, ElectorMessage message, Runnable delivery);

    @Override
    public void register(String group, NodeId self, TransportListener listener) {
        delegate.register(group, self, new TransportListener() {
            @Override
            public void onMessage(NodeId from, ElectorMessage message) {
                received(from, message, () -> listener.onMessage(from, message));
            }

            @Override
            public void onPeerConnected(NodeId peer) {
                listener.onPeerConnected(peer);
            }

            @Override
            public void onPeerDisconnected(NodeId peer) {
                listener.onPeerDisconnected(peer);
            }

            @Override
            public void onPeerGone(NodeId peer) {
                listener.onPeerGone(peer);
            }
        });
    }

    @Override
    public void send(String group, NodeId to, ElectorMessage message) {
        delegate.send(group, to, message);
    }

    @Override
    public void unregister(String group, NodeId self) {
        delegate.unregister(group, self);
    }
}
