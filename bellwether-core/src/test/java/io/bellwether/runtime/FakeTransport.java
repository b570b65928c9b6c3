package io.bellwether.runtime;

import io.bellwether.NodeId;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.StoredState;
import io.bellwether.spi.StateStore;
import io.bellwether.spi.StateStoreException;
import io.bellwether.spi.Transport;
import io.bellwether.spi.TransportListener;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;

/** A transport and a state store that record what they are asked to do into one shared log. */
final class FakeTransport implements Transport {
    static final NodeId PEER = NodeId.of("peer");

    final List<String> log;
    /** A permit for every message sent. */
    final java.util.concurrent.Semaphore sent = new java.util.concurrent.Semaphore(0);

    private final Optional<ScheduledExecutorService> sharedLoop;
    volatile TransportListener listener;

    FakeTransport(List<String> log) {
        this(log, Optional.empty());
    }

    /** One that offers {@code sharedLoop} to elections, as a transport with an I/O thread does. */
    FakeTransport(List<String> log, Optional<ScheduledExecutorService> sharedLoop) {
        this.log = log;
        this.sharedLoop = sharedLoop;
    }

    @Override
    public Optional<ScheduledExecutorService> sharedLoop() {
        return sharedLoop;
    }

    @Override
    public void register(String group, NodeId self, TransportListener listener) {
        log.add("register " + group + " " + self);
        this.listener = listener;
    }

    @Override
    public void send(String group, NodeId to, ElectorMessage message) {
        log.add("send " + to + " " + message);
        sent.release();
    }

    @Override
    public void unregister(String group, NodeId self) {
        log.add("unregister " + group + " " + self);
    }

    /** Runs {@code action} on the election's loop, as the elector handling a message. */
    void run(Consumer<ElectorContext> action) {
        listener.onMessage(PEER, new ScriptSpec.Do(action));
    }

    static final class RecordingStore implements StateStore {
        final List<String> log;
        final Map<String, StoredState> states = new ConcurrentHashMap<>();
        volatile StateStoreException failLoads;
        volatile StateStoreException failSaves;
        /** When set, every save waits until it is counted down, as a save waiting for a slow disk. */
        volatile CountDownLatch slowDisk;

        RecordingStore(List<String> log) {
            this.log = log;
        }

        @Override
        public StoredState load(String group) {
            if (failLoads != null) {
                throw failLoads;
            }
            return states.getOrDefault(group, StoredState.EMPTY);
        }

        @Override
        public void save(String group, StoredState state) {
            CountDownLatch disk = slowDisk;
            if (disk != null) {
                try {
                    if (!disk.await(60, java.util.concurrent.TimeUnit.SECONDS)) {
                        throw new StateStoreException("the test's disk never answered");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new StateStoreException("interrupted");
                }
            }
            if (failSaves != null) {
                log.add("failed save " + group + " " + state);
                throw failSaves;
            }
            states.put(group, state);
            log.add("save " + group + " " + state);
        }
    }

    static List<String> newLog() {
        return new CopyOnWriteArrayList<>();
    }
}
