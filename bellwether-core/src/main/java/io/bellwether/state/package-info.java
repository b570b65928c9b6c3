/**
 * The {@link io.bellwether.spi.StateStore} implementations Bellwether ships: {@link
 * io.bellwether.state.FileStateStore}, which keeps each group's counters in a small crash-safe file under a
 * locked directory (use it in production: a quorum member must not forget its term across a restart), and
 * {@link io.bellwether.state.InMemoryStateStore}, for tests and for members that get a new identity whenever
 * they restart. {@link io.bellwether.state.GroupNames} holds the rule for group names that both follow.
 */
package io.bellwether.state;
