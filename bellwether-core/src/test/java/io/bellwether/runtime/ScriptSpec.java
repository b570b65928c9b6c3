package io.bellwether.runtime;

import io.bellwether.NodeId;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.TimerKey;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * A tiny test elector whose behaviour the test scripts: hooks for start, timers, messages and stop, and
 * {@link Do} messages that run an action on the elector's loop with its context.
 */
final class ScriptSpec implements ElectorSpec {
    /** Runs {@code action} on the receiving elector's loop. */
    record Do(Consumer<ElectorContext> action) implements ElectorMessage {}

    /** A plain message. */
    record Ping(String text) implements ElectorMessage {}

    enum Timers implements TimerKey {
        A,
        B
    }

    volatile Consumer<ElectorContext> onStart = c -> {};
    volatile BiConsumer<ElectorContext, TimerKey> onTimer = (c, k) -> {};
    volatile MessageHook onMessage = (c, from, m) -> {};
    volatile Consumer<ElectorContext> onStop = c -> {};
    final List<String> events = new CopyOnWriteArrayList<>();
    final AtomicInteger stops = new AtomicInteger();

    interface MessageHook {
        void accept(ElectorContext context, NodeId from, ElectorMessage message);
    }

    @Override
    public String algorithm() {
        return "script";
    }

    @Override
    public Elector create(ElectorContext context) {
        return new Elector() {
            @Override
            public void start() {
                events.add("start");
                onStart.accept(context);
            }

            @Override
            public void onMessage(NodeId from, ElectorMessage message) {
                if (message instanceof Do d) {
                    d.action().accept(context);
                } else {
                    events.add("message " + message + " from " + from);
                    onMessage.accept(context, from, message);
                }
            }

            @Override
            public void onTimer(TimerKey key) {
                events.add("timer " + key.name());
                onTimer.accept(context, key);
            }

            @Override
            public void onPeerConnected(NodeId peer) {
                events.add("connected " + peer);
            }

            @Override
            public void onPeerDisconnected(NodeId peer) {
                events.add("disconnected " + peer);
            }

            @Override
            public void stop() {
                stops.incrementAndGet();
                events.add("stop");
                onStop.accept(context);
            }

            @Override
            public ElectorState state() {
                return ElectorState.DORMANT;
            }
        };
    }
}
