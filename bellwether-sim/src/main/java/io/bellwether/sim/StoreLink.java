package io.bellwether.sim;

import io.bellwether.elector.StoreReply;
import io.bellwether.elector.StoreRequest;
import io.bellwether.lease.LeaseReply;
import io.bellwether.lease.LeaseRequest;
import io.bellwether.lease.LeaseStoreClient;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeoutException;

/**
 * The nodes' side of the simulated lease store of a lease run: requests travel to the {@link SimLeaseStore}
 * with a latency, may find it down or slow, and their replies may be lost; a node's driver answers a request
 * with a timeout failure if nothing came back in time. Whichever answer comes first is the only one.
 */
final class StoreLink {
    static final String STORE_GROUP = "sim";

    private final Engine e;
    final SimLeaseStore leaseStore;
    private final LeaseStoreClient leaseClient;
    /** Store randomness: latencies, lost replies, leader writes. */
    final SplittableRandom rng;
    /** Whether this run's store pushes releases to waiting contenders (drawn per run). */
    final boolean pushes;

    int outages;
    long slowNanos;
    double lostReplyRate;
    private final List<StoreCall> releaseWaiters = new ArrayList<>();

    /** One store request in flight: answered exactly once (by the store or by its timeout). */
    private static final class StoreCall {
        final SimNode node;
        final int incarnation;
        final StoreRequest request;
        boolean answered;

        StoreCall(SimNode node, int incarnation, StoreRequest request) {
            this.node = node;
            this.incarnation = incarnation;
            this.request = request;
        }
    }

    StoreLink(Engine engine, SplittableRandom rng) {
        this.e = engine;
        this.rng = rng;
        this.pushes = rng.nextBoolean();
        this.leaseStore = new SimLeaseStore(() -> e.now);
        this.leaseClient = new LeaseStoreClient(leaseStore, STORE_GROUP);
    }

    /**
     * A node's store request: it reaches the store after a latency (unless the store is down then, when it is
     * neither applied nor answered), is applied on the store's clock, and its reply travels back after another
     * latency unless it is lost. The node's driver gives up after the request's timeout on the node's own
     * clock and delivers the failure reply instead; whichever comes first is the only answer.
     */
    void request(SimNode node, StoreRequest request) {
        e.accounting.countStoreRequest();
        e.recorder.add(e.now, node.index, "store-send", node.state.epoch(), -1, request);
        StoreCall call = new StoreCall(node, node.incarnation, request);
        long timeout = node.trueDelay(Math.max(0, request.timeoutNanos()));
        e.at(e.now + timeout, () -> answer(call, request.failed(new TimeoutException("simulated store timeout"))));
        if (request instanceof LeaseRequest.AwaitRelease) {
            if (pushes) {
                releaseWaiters.add(call);
            }
            return;
        }
        e.at(e.now + latency(), () -> applyAtStore(call));
    }

    private long latency() {
        long latency = Network.BASE_LATENCY_MIN + rng.nextLong(Network.BASE_LATENCY_SPREAD + 1);
        if (slowNanos > 0) {
            latency += rng.nextLong(slowNanos + 1);
        }
        return latency;
    }

    private void applyAtStore(StoreCall call) {
        if (outages > 0) {
            e.recorder.add(e.now, call.node.index, "store-down", 0, -1, call.request);
            return;
        }
        StoreReply reply;
        try {
            reply = leaseClient.execute(call.request).toCompletableFuture().join();
        } catch (RuntimeException ex) {
            reply = call.request.failed(ex);
        }
        e.recorder.add(e.now, call.node.index, "store-apply", 0, -1, reply);
        if (reply instanceof LeaseReply.Released r && r.released()) {
            List<StoreCall> waiters = new ArrayList<>(releaseWaiters);
            releaseWaiters.clear();
            for (StoreCall w : waiters) {
                if (!w.answered) {
                    StoreReply note = new LeaseReply.ReleasedNotification(((LeaseRequest) w.request).id());
                    e.at(e.now + latency(), () -> answer(w, note));
                }
            }
        }
        if (lostReplyRate > 0 && rng.nextDouble() < lostReplyRate) {
            e.recorder.add(e.now, call.node.index, "store-reply-lost", 0, -1, reply);
            return;
        }
        StoreReply answer = reply;
        e.at(e.now + latency(), () -> answer(call, answer));
    }

    /** The first answer to a call goes to its node (queued while the node is paused); later ones are dropped. */
    private void answer(StoreCall call, StoreReply reply) {
        if (call.answered) {
            return;
        }
        call.answered = true;
        releaseWaiters.remove(call);
        Event ev = e.newEvent(e.now, Event.STORE_REPLY);
        ev.node = call.node.index;
        ev.incarnation = call.incarnation;
        ev.payload = reply;
        deliverReply(ev);
    }

    void deliverReply(Event ev) {
        SimNode node = e.nodes[ev.node];
        if (!node.takes(ev)) {
            return;
        }
        e.recorder.add(e.now, node.index, "store-reply", node.state.epoch(), -1, ev.payload);
        node.elector.onStoreReply((StoreReply) ev.payload);
        e.driver.afterEvent(node);
    }
}
