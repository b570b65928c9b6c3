/**
 * The lease elector: members take turns holding one lease per group in a shared store (a database or Redis
 * they already run, through a {@link io.bellwether.spi.LeaseStore}), renewing it while they lead; the lease's
 * token is the leadership's fencing token. Users configure it with {@link io.bellwether.lease.LeaseConfig};
 * the elector and its store requests and replies are used by the runtime and the simulator. See
 * {@code docs/lease-stores.md}.
 */
package io.bellwether.lease;
