package io.bellwether;

/**
 * Work that may only run while this member leads. Implementations must stop promptly when interrupted or
 * when {@link Leadership#revoked()} completes, and should call {@link Leadership#checkValid()} before each
 * side effect.
 */
@FunctionalInterface
public interface LeaderTask {
    void run(Leadership leadership) throws Exception;
}
