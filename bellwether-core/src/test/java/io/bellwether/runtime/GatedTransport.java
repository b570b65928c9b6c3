package io.bellwether.runtime;

import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.spi.Transport;
import java.util.ArrayList;
import java.util.List;

/**
 * A transport whose member's inbound messages (and, if asked, its outbound ones) wait while it is held, connections
 * staying open, and go on in order when it is released: a network that hangs, or messages that arrive late.
 */
final class GatedTransport extends InterceptingTransport {
    private final boolean outboundToo;
    private final List<Runnable> waiting = new ArrayList<>();
    private boolean held;

    /** @param outboundToo whether what the member sends waits too, not only what it receives */
    GatedTransport(Transport delegate, boolean outboundToo) {
        super(delegate);
        this.outboundToo = outboundToo;
    }

    synchronized void hold() {
        held = true;
    }

    void release() {
        List<Runnable> release;
        synchronized (this) {
            held = false;
            release = new ArrayList<>(waiting);
            waiting.clear();
        }
        release.forEach(Runnable::run);
    }

    @Override
    void received(NodeId from, ElectorMessage message, Runnable delivery) {
        pass(delivery);
    }

    @Override
    public void send(String group, NodeId to, ElectorMessage message) {
        if (outboundToo) {
            pass(() -> super.send(group, to, message));
        } else {
            super.send(group, to, message);
        }
    }

    private void pass(Runnable r) {
        synchronized (this) {
            if (held) {
                waiting.add(r);
                return;
            }
        }
        r.run();
    }
}
