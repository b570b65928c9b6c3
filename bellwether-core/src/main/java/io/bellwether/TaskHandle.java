package io.bellwether;

/**
 * What {@link Election#runWhileLeader(LeaderTask, TaskOptions)} returns: closes the registration, and counts what
 * happened to the task, for metrics. Thread-safe.
 */
public interface TaskHandle extends AutoCloseable {
    /** The task's {@linkplain TaskOptions#name() name}. */
    String name();

    /**
     * How many events of {@code kind} the task has had since it was registered: a monotonic counter, for a
     * metrics registry to read (for example as a Micrometer {@code FunctionCounter} tagged with the kind).
     */
    long count(TaskEvent.Kind kind);

    /**
     * Stops running the task on future leaderships, and stops restarting it; a run in progress runs on until its
     * leadership ends (it is interrupted then, as always). Idempotent.
     */
    @Override
    void close();
}
