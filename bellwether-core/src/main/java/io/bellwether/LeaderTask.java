package io.bellwether;

/**
 * Work that may only run while this member leads, given to {@link Election#runWhileLeader(LeaderTask, TaskOptions)}.
 * Implementations must stop promptly when interrupted or when {@link Leadership#revoked()} completes, should call
 * {@link Leadership#checkValid()} before each side effect, and, when a {@linkplain TaskOptions#healthTimeout() health
 * timeout} is set, call {@link Leadership#heartbeat()} more often than that. Returning or throwing while this member
 * still leads is handled by the options' {@link TaskOptions#onReturn()} and {@link TaskOptions#onFailure()}.
 */
@FunctionalInterface
public interface LeaderTask {
    void run(Leadership leadership) throws Exception;
}
