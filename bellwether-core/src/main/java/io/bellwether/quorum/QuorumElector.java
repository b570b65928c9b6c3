package io.bellwether.quorum;

import io.bellwether.NodeId;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.TimerKey;

/** Placeholder; replaced by the real elector. */
public final class QuorumElector implements Elector {
    QuorumElector(QuorumConfig config, ElectorContext context) {}

    @Override
    public void start() {}

    @Override
    public void onMessage(NodeId from, ElectorMessage message) {}

    @Override
    public void onTimer(TimerKey key) {}

    @Override
    public void stop() {}

    @Override
    public ElectorState state() {
        return ElectorState.DORMANT;
    }
}
