package io.bellwether.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.inprocess.InProcessNetwork;
import io.bellwether.inprocess.InProcessNetwork.InProcessTransport;
import io.bellwether.runtime.ScriptSpec.Ping;
import io.bellwether.spi.TransportListener;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class InProcessNetworkTest {
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");
    private static final NodeId C = NodeId.of("c");

    private final InProcessNetwork network = new InProcessNetwork();

    @AfterEach
    void close() {
        network.close();
    }

    /** Records callbacks; {@link #next()} waits for the next one. */
    private static class Inbox implements TransportListener {
        final BlockingQueue<String> events = new LinkedBlockingQueue<>();
        volatile Thread lastThread;

        @Override
        public void onMessage(NodeId from, ElectorMessage message) {
            lastThread = Thread.currentThread();
            events.add(from + ": " + message);
        }

        @Override
        public void onPeerConnected(NodeId peer) {
            events.add("connected " + peer);
        }

        @Override
        public void onPeerDisconnected(NodeId peer) {
            events.add("disconnected " + peer);
        }

        String next() throws InterruptedException {
            String e = events.poll(10, TimeUnit.SECONDS);
            assertThat(e).as("an event within 10 s").isNotNull();
            return e;
        }
    }

    private Inbox register(NodeId node, String group) {
        Inbox inbox = new Inbox();
        network.transport(node).register(group, node, inbox);
        return inbox;
    }

    @Test
    void membersOfAGroupAreConnectedAndExchangeMessagesAsynchronously() throws Exception {
        Inbox a = register(A, "g");
        Inbox b = register(B, "g");
        assertThat(a.next()).isEqualTo("connected b");
        assertThat(b.next()).isEqualTo("connected a");
        network.transport(A).send("g", B, new Ping("1"));
        network.transport(A).send("g", B, new Ping("2"));
        assertThat(b.next()).isEqualTo("a: Ping[text=1]");
        assertThat(b.next()).isEqualTo("a: Ping[text=2]");
        assertThat(b.lastThread).isNotEqualTo(Thread.currentThread());
    }

    @Test
    void groupsAreSeparate() throws Exception {
        Inbox a = register(A, "g");
        Inbox bOther = register(B, "other");
        Inbox b = register(B, "g");
        assertThat(a.next()).isEqualTo("connected b");
        network.transport(A).send("other", B, new Ping("wrong group"));
        network.transport(A).send("g", B, new Ping("right group"));
        assertThat(b.next()).isEqualTo("connected a");
        assertThat(b.next()).isEqualTo("a: Ping[text=right group]");
        assertThat(bOther.events).isEmpty();
    }

    @Test
    void disconnectTellsBothEndsAndDropsTrafficUntilReconnected() throws Exception {
        Inbox a = register(A, "g");
        Inbox b = register(B, "g");
        a.next();
        b.next();
        network.disconnect(A, B);
        assertThat(a.next()).isEqualTo("disconnected b");
        assertThat(b.next()).isEqualTo("disconnected a");
        network.transport(A).send("g", B, new Ping("lost"));
        network.reconnect(A, B);
        assertThat(a.next()).isEqualTo("connected b");
        assertThat(b.next()).isEqualTo("connected a");
        network.transport(A).send("g", B, new Ping("after"));
        assertThat(b.next()).isEqualTo("a: Ping[text=after]");
    }

    @Test
    void messageInFlightWhenTheConnectionClosesIsNotDeliveredAfterTheClose() throws Exception {
        Inbox a = register(A, "g");
        Inbox b = register(B, "g");
        a.next();
        b.next();
        // Hold the delivery thread so that the message is still in flight when the link closes.
        java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
        Inbox c = new Inbox() {
            @Override
            public void onMessage(NodeId from, ElectorMessage message) {
                try {
                    hold.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                super.onMessage(from, message);
            }
        };
        network.transport(C).register("h", C, c);
        register(A, "h");
        network.transport(A).send("h", C, new Ping("hold"));
        network.transport(A).send("g", B, new Ping("in flight"));
        network.disconnect(A, B);
        hold.countDown();
        assertThat(b.next()).isEqualTo("disconnected a");
        network.reconnect(A, B);
        assertThat(b.next()).isEqualTo("connected a");
    }

    @Test
    void isolatedNodeSilentlyLosesTrafficUntilHealed() throws Exception {
        Inbox a = register(A, "g");
        Inbox b = register(B, "g");
        a.next();
        b.next();
        network.isolate(A);
        network.transport(A).send("g", B, new Ping("lost"));
        network.transport(B).send("g", A, new Ping("lost too"));
        network.heal(A);
        network.transport(A).send("g", B, new Ping("after"));
        network.transport(B).send("g", A, new Ping("after"));
        assertThat(b.next()).isEqualTo("a: Ping[text=after]");
        assertThat(a.next()).isEqualTo("b: Ping[text=after]");
    }

    @Test
    void closingATransportTellsItsPeers() throws Exception {
        Inbox a = register(A, "g");
        Inbox b = register(B, "g");
        Inbox c = register(C, "g");
        assertThat(List.of(a.next(), a.next())).containsExactlyInAnyOrder("connected b", "connected c");
        assertThat(List.of(b.next(), b.next())).containsExactlyInAnyOrder("connected a", "connected c");
        assertThat(List.of(c.next(), c.next())).containsExactlyInAnyOrder("connected a", "connected b");
        InProcessTransport closing = network.transport(C);
        closing.close();
        assertThat(a.next()).isEqualTo("disconnected c");
        assertThat(b.next()).isEqualTo("disconnected c");
        assertThat(c.events).isEmpty();
        // A new transport for the same node can join again.
        register(C, "g");
        assertThat(a.next()).isEqualTo("connected c");
    }
}
