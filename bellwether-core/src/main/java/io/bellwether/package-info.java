/**
 * The API an application uses: build an {@link io.bellwether.Election} with {@link io.bellwether.ElectionBuilder}
 * ({@code Election.builder()}), start it, and learn who leads through an {@link io.bellwether.ElectionListener} or
 * by asking it. The leader holds a {@link io.bellwether.Leadership} for one epoch: act only while it is valid,
 * pass its epoch as a fencing token, and run leader-only work with a {@link io.bellwether.LeaderTask} so that
 * it is stopped when the leadership ends. Members are named by {@link io.bellwether.NodeId} and reached at a
 * {@link io.bellwether.NodeAddress}; an algorithm is chosen by passing its configuration (for example
 * {@code QuorumConfig.defaults()}) to the builder.
 */
package io.bellwether;
