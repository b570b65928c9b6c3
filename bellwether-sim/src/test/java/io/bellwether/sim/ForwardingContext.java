package io.bellwether.sim;

import io.bellwether.NodeId;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.StoreRequest;
import io.bellwether.elector.StoredState;
import io.bellwether.elector.TimerKey;
import java.util.List;
import java.util.random.RandomGenerator;

/** A context that forwards everything; mutation doubles override the part they break. */
class ForwardingContext implements ElectorContext {
    final ElectorContext delegate;

    ForwardingContext(ElectorContext delegate) {
        this.delegate = delegate;
    }

    @Override
    public NodeId self() {
        return delegate.self();
    }

    @Override
    public List<NodeId> members() {
        return delegate.members();
    }

    @Override
    public long nanoTime() {
        return delegate.nanoTime();
    }

    @Override
    public RandomGenerator random() {
        return delegate.random();
    }

    @Override
    public void send(NodeId to, ElectorMessage message) {
        delegate.send(to, message);
    }

    @Override
    public void schedule(TimerKey key, long delayNanos) {
        delegate.schedule(key, delayNanos);
    }

    @Override
    public void cancel(TimerKey key) {
        delegate.cancel(key);
    }

    @Override
    public StoredState storedState() {
        return delegate.storedState();
    }

    @Override
    public void persist(StoredState state) {
        delegate.persist(state);
    }

    @Override
    public void announce(ElectorState state, ChangeReason reason) {
        delegate.announce(state, reason);
    }

    @Override
    public void validUntil(long nanos) {
        delegate.validUntil(nanos);
    }

    @Override
    public void storeRequest(StoreRequest request) {
        delegate.storeRequest(request);
    }
}
