package io.bellwether.runtime;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.Leadership;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.MessageCodec;
import io.bellwether.elector.StoreClient;
import io.bellwether.inprocess.InProcessNetwork;
import io.bellwether.spi.Transport;
import io.bellwether.spi.TransportListener;
import io.bellwether.state.InMemoryStateStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an algorithm once in memory before a member joins its real cluster: three members on an {@link
 * InProcessNetwork}, every message through the algorithm's {@link MessageCodec}, elect a leader, hand over
 * gracefully to another, and are thrown away.
 *
 * <p>Why: a JVM runs code it has never run slowly. It loads the classes, links every lambda on first use
 * (each a generated class) and interprets the bytecode. In a long-lived follower the failover paths (the
 * cession, the candidacy, the leadership and its watchdog, the codec of every message kind) typically run for
 * the first time during the failover itself: measured on real processes, that added 5–10 ms to each step of a
 * graceful handover. A rehearsal moves that cost to start-up, where it delays nobody.
 *
 * <p>Nothing of the rehearsal leaks out: its members have their own names, network, in-memory state and
 * group, and share nothing with the real election but the (immutable) algorithm configuration. Algorithms
 * that need an external store ({@link ElectorSpec#storeClient(String)}) are not rehearsed.
 */
public final class Rehearsal {
    private static final Logger log = LoggerFactory.getLogger(Rehearsal.class);
    private static final String GROUP = "bellwether-rehearsal";
    private static final int MEMBERS = 3;
    /** How long a rehearsal leader leads before it stops. */
    private static final Duration SETTLE = Duration.ofMillis(300);

    private Rehearsal() {}

    /**
     * Rehearses {@code algorithm}, giving up after {@code budget}.
     *
     * @return whether a first and a second leader were elected within the budget (false also for algorithms
     *     that need a store); either way every rehearsal thread is stopped when this returns
     */
    public static boolean run(ElectorSpec algorithm, Duration budget) {
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(budget, "budget");
        StoreClient store = algorithm.storeClient("rehearsal");
        if (store != null) {
            store.close();
            return false;
        }
        long deadline = System.nanoTime() + budget.toNanos();
        Map<NodeId, NodeAddress> members = new LinkedHashMap<>();
        for (int i = 1; i <= MEMBERS; i++) {
            members.put(NodeId.of("rehearsal-" + i), NodeAddress.parse("127.0.0.1:" + i));
        }
        Semaphore elected = new Semaphore(0);
        List<Election> elections = new ArrayList<>();
        try (InProcessNetwork network = new InProcessNetwork()) {
            try {
                long seed = 1;
                for (NodeId id : members.keySet()) {
                    Election e = Election.builder()
                            .group(GROUP)
                            .self(id)
                            .members(members)
                            .algorithm(algorithm)
                            .stateStore(new InMemoryStateStore())
                            .transport(new ThroughCodec(network.transport(id), algorithm.codec()))
                            .seed(seed++)
                            .build();
                    e.addListener(new ElectionListener() {
                        @Override
                        public void elected(Leadership leadership) {
                            elected.release();
                        }
                    });
                    elections.add(e);
                }
                elections.forEach(Election::start);
                if (!acquire(elected, deadline)) {
                    return false;
                }
                Election leader = elections.stream()
                        .filter(Election::isLeader)
                        .findFirst()
                        .orElse(null);
                if (leader == null) {
                    return false;
                }
                // Let the leader settle before it stops, as a real one has: a quorum leader names its standby
                // successor, which gathers its pledges within a few heartbeats; the graceful stop below then
                // takes the path a real handover takes (the standby's takeover, else the successor's candidacy).
                pause(Math.min(SETTLE.toNanos(), Math.max(0, deadline - System.nanoTime()) / 2));
                leader.close(); // graceful: the cession and the successor's takeover
                return acquire(elected, deadline);
            } finally {
                elections.forEach(Election::close);
            }
        } catch (RuntimeException e) {
            // A warm-up must never stop the real member from starting.
            log.debug("the rehearsal of {} failed: {}", algorithm.algorithm(), e.toString());
            return false;
        }
    }

    private static void pause(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean acquire(Semaphore elected, long deadlineNanos) {
        try {
            return elected.tryAcquire(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Sends every message through the codec and back, as a transport to another process would. */
    private record ThroughCodec(Transport delegate, MessageCodec codec) implements Transport {
        @Override
        public void register(String group, NodeId self, TransportListener listener) {
            delegate.register(group, self, listener);
        }

        @Override
        public void send(String group, NodeId to, ElectorMessage message) {
            delegate.send(group, to, codec.decode(codec.typeOf(message), codec.encode(message)));
        }

        @Override
        public void unregister(String group, NodeId self) {
            delegate.unregister(group, self);
        }
    }
}
