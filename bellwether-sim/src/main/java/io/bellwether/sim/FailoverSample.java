package io.bellwether.sim;

/**
 * How long the group was without a leader after a fault hit its leader.
 *
 * @param cause the kind of fault that hit the leader
 * @param nanos from the fault to the moment a new leader was elected (true simulated time)
 * @param messages messages sent by all nodes during that interval
 */
public record FailoverSample(FaultKind cause, long nanos, long messages) {}
