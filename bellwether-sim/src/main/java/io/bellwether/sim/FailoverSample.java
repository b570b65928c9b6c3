package io.bellwether.sim;

/**
 * How long the group was without a leader after a fault hit its leader.
 *
 * @param cause the kind of fault that hit the leader
 * @param nanos from the fault to the moment a new leader was elected (true simulated time); for a graceful stop,
 *     from the stopped leader's revocation, since it leads until then (a handover first prepares the successor)
 * @param messages messages sent by all nodes from the fault to that election (for a stop, the handover's too)
 */
public record FailoverSample(FaultKind cause, long nanos, long messages) {}
