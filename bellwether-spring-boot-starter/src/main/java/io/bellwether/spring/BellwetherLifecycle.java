package io.bellwether.spring;

import io.bellwether.Election;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the application's election with the context and stops it in an order that hands leadership over cleanly.
 *
 * <p>Stopping: (1) no {@link LeaderOnly} method starts any more, running ones are interrupted, and this waits up to
 * {@code bellwether.stop-timeout} for them to return; (2) the elections resign ({@link Election#close()}: a leader
 * hands over to its successor, after its listeners, application event listeners included, have been told); (3) in
 * lease mode it waits (at most the lease's request timeout) for the lease's release to reach the store, so that the
 * next leader takes it at once instead of after it expires, then closes the lease store the starter made (never the
 * pool or client it borrows from).
 *
 * <p>Its {@linkplain #PHASE phase} puts this after the web server's graceful shutdown and before the lifecycle beans
 * of phase 0 and below, such as Spring Data Redis' connection factory, whose client the lease store may use; and
 * every lifecycle bean stops before any bean is destroyed, so the DataSource is still open while the lease is
 * released.
 */
public final class BellwetherLifecycle implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(BellwetherLifecycle.class);

    /**
     * {@code SmartLifecycle.DEFAULT_PHASE - 4096}: starts before, and stops after, the web server (Spring Boot's web
     * server lifecycle runs at {@code DEFAULT_PHASE - 2048}, its graceful shutdown at {@code DEFAULT_PHASE - 1024}),
     * so that requests still being served keep their leadership; starts after, and stops before, phase 0 (the
     * default of {@code Lifecycle} beans, and Spring Data Redis' connection factory).
     */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private final Election election;
    private final LeaderOnlyRegistry registry;
    private final ElectionFactory factory;
    private volatile boolean running;

    BellwetherLifecycle(Election election, LeaderOnlyRegistry registry, ElectionFactory factory) {
        this.election = election;
        this.registry = registry;
        this.factory = factory;
    }

    @Override
    public void start() {
        factory.publishEvents(election);
        election.start();
        registry.open();
        running = true;
    }

    @Override
    public void stop() {
        if (!running) {
            return;
        }
        running = false;
        Duration stopTimeout = factory.settings().stopTimeout();
        registry.stopWork(stopTimeout);
        List<Election> all = new ArrayList<>(registry.groupElections());
        all.add(election);
        List<CompletableFuture<Void>> releases = new ArrayList<>();
        for (Election e : all) {
            if (e.leadership().isPresent()) {
                factory.store().ifPresent(store -> releases.add(store.nextReleaseEnded()));
            }
        }
        for (Election e : all) {
            try {
                e.close();
            } catch (RuntimeException failure) {
                log.warn("closing the election of group {} failed", e.group(), failure);
            }
        }
        awaitReleases(releases);
        factory.closeOwnedStore();
    }

    private void awaitReleases(List<CompletableFuture<Void>> releases) {
        if (releases.isEmpty()) {
            return;
        }
        // A release still on its way when the store closes would leave the successor waiting for the lease to
        // expire.
        Duration timeout = factory.settings().storeRequestTimeout();
        try {
            CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            log.debug("the lease's release did not end within {}", timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
