package io.bellwether.sim;

import io.bellwether.NodeId;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.StoreReply;
import io.bellwether.elector.TimerKey;

/** An elector that forwards every event to a real one; mutation doubles override the part they break. */
class ForwardingElector implements Elector {
    final Elector inner;

    ForwardingElector(Elector inner) {
        this.inner = inner;
    }

    @Override
    public void start() {
        inner.start();
    }

    @Override
    public void onMessage(NodeId from, ElectorMessage message) {
        inner.onMessage(from, message);
    }

    @Override
    public void onTimer(TimerKey key) {
        inner.onTimer(key);
    }

    @Override
    public void onPeerConnected(NodeId peer) {
        inner.onPeerConnected(peer);
    }

    @Override
    public void onPeerDisconnected(NodeId peer) {
        inner.onPeerDisconnected(peer);
    }

    @Override
    public void onPeerGone(NodeId peer) {
        inner.onPeerGone(peer);
    }

    @Override
    public void onStoreReply(StoreReply reply) {
        inner.onStoreReply(reply);
    }

    @Override
    public boolean beginStop() {
        return inner.beginStop();
    }

    @Override
    public void resign(long holdOffNanos) {
        inner.resign(holdOffNanos);
    }

    @Override
    public void stop() {
        inner.stop();
    }

    @Override
    public ElectorState state() {
        return inner.state();
    }
}
