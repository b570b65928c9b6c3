package io.bellwether.runtime;

import io.bellwether.ElectionListener;
import io.bellwether.LeaderTask;
import io.bellwether.Leadership;
import io.bellwether.NodeId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link LeaderTask} on its own thread for each leadership, interrupting it on revocation: what {@link
 * io.bellwether.Election#runWhileLeader} returns. A listener like any other: it hears of each leadership on the
 * notifier, in order with the listeners added before it, and starts the task's thread from there.
 */
final class TaskRunner implements ElectionListener, AutoCloseable {
    /** One log category for the whole election runtime, as operators filter on it. */
    private static final Logger log = LoggerFactory.getLogger(RuntimeElection.class);

    private final String group;
    private final NodeId self;
    private final LeaderTask task;
    private final ListenerBus bus;
    private volatile boolean closed;

    TaskRunner(String group, NodeId self, LeaderTask task, ListenerBus bus) {
        this.group = group;
        this.self = self;
        this.task = task;
        this.bus = bus;
    }

    @Override
    public void elected(Leadership l) {
        if (closed) {
            return;
        }
        Thread thread = new Thread(() -> run(l), "bellwether-task-" + group + "-" + self + "-" + l.epoch());
        thread.setDaemon(true);
        thread.start();
        // Completes on the watchdog thread, so the interrupt does not wait for the loop or the notifier.
        l.revoked().whenComplete((r, e) -> thread.interrupt());
    }

    private void run(Leadership l) {
        if (!l.isValid()) {
            return;
        }
        try {
            task.run(l);
        } catch (InterruptedException e) {
            log.debug("group {} node {}: leader task of epoch {} interrupted", group, self, l.epoch());
        } catch (Exception e) {
            if (l.isValid()) {
                log.warn("group {} node {}: leader task of epoch {} failed", group, self, l.epoch(), e);
            } else {
                log.debug(
                        "group {} node {}: leader task of epoch {} ended after revocation: {}",
                        group,
                        self,
                        l.epoch(),
                        e.toString());
            }
        }
    }

    /** Stops running the task on future leaderships; a task running now runs on until its revocation. */
    @Override
    public void close() {
        closed = true;
        bus.removeListener(this);
    }
}
