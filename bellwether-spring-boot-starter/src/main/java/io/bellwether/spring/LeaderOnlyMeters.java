package io.bellwether.spring;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * {@code bellwether.leader.only.skipped} and {@code bellwether.leader.only.revoked}, counters tagged {@code group} and
 * {@code method}: calls of {@link LeaderOnly} methods not run because this instance did not lead, and runs
 * interrupted because their leadership was revoked.
 */
final class LeaderOnlyMeters implements MeterBinder, LeaderOnlyCounter {
    static final String SKIPPED = "bellwether.leader.only.skipped";
    static final String REVOKED = "bellwether.leader.only.revoked";

    private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

    @Override
    public void bindTo(MeterRegistry registry) {
        registries.add(registry);
    }

    @Override
    public void skipped(String group, String method) {
        count(SKIPPED, "Calls of @LeaderOnly methods not run: this instance did not lead", group, method);
    }

    @Override
    public void revoked(String group, String method) {
        count(REVOKED, "Runs of @LeaderOnly methods interrupted: their leadership was revoked", group, method);
    }

    private void count(String name, String description, String group, String method) {
        for (MeterRegistry registry : registries) {
            Counter.builder(name)
                    .description(description)
                    .tag("group", group)
                    .tag("method", method)
                    .register(registry)
                    .increment();
        }
    }
}
