/**
 * Micrometer metrics for an embedded election: {@link io.bellwether.micrometer.BellwetherMetrics} binds an election's
 * meters to a registry, {@link io.bellwether.micrometer.MeteredLeaseStore} times a lease store's calls. The meter
 * names are those of the {@code bellwether node}'s {@code /metrics} ({@link io.bellwether.micrometer.ElectionMeters}).
 */
package io.bellwether.micrometer;
