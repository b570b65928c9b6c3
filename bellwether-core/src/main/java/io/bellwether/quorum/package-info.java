/**
 * The quorum elector, Bellwether's default: Raft-style terms and majority votes with a pre-vote ("scouting")
 * round, leader validity measured on the leader's own clock, and a standby successor that lets a stopping
 * leader hand over at once. Users configure it with {@link io.bellwether.quorum.QuorumConfig} and pass that to
 * the election builder; the elector, its messages and its codec are used by the runtime and the simulator.
 * The protocol and its numbered rules are in {@code docs/quorum.md}.
 */
package io.bellwether.quorum;
