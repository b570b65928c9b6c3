/**
 * Bellwether beside its incumbents: the same failover and idle scenarios run on Bellwether, Apache Ratis, Apache
 * Curator's {@code LeaderLatch} on ZooKeeper and the lease-based locks on PostgreSQL, every node its own process on
 * loopback, driven by {@link io.bellwether.bench.peers.PeerComparison}. Every node main prints the same protocol
 * lines ({@code bw-peer ready ID}, {@code bw-peer leader NANOS}, {@code bw-peer follower NANOS}, {@code bw-peer
 * statements TOTAL}), which is all the driver reads.
 */
package io.bellwether.bench.peers;
