/**
 * What users implement or plug in: the {@link io.bellwether.spi.Transport} that carries elector messages
 * between members (with its {@link io.bellwether.spi.TransportListener}), the
 * {@link io.bellwether.spi.StateStore} that keeps an elector's counters across restarts, and the
 * {@link io.bellwether.spi.LeaseStore} that holds the lease-based elector's leases. Each interface states the
 * contract the electors' safety arguments rely on. Bellwether ships implementations in other packages and
 * modules ({@code bellwether-transport-tcp}, {@code bellwether-store-jdbc}, {@code bellwether-store-redis},
 * {@code io.bellwether.state}); implement one yourself only to reach a network or a store they do not cover.
 */
package io.bellwether.spi;
