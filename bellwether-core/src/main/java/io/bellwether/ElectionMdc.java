package io.bellwether;

/**
 * The SLF4J {@link org.slf4j.MDC} keys an election's log lines carry, so that a log stack can filter them by group
 * and member (the message text names both as well).
 *
 * <p>They are set once on each thread the election owns (its event loop, its listeners' notifier, its watchdog, its
 * store caller, the threads of its leader tasks and a leader task's step-down), and around each of the election's tasks on threads it does not
 * own: a transport's shared I/O thread and a {@linkplain ElectionBuilder#listenerExecutor listener executor}, where
 * the values that were there before are restored afterwards. Logging from inside a listener callback or a leader
 * task therefore carries them too.
 */
public final class ElectionMdc {
    /** The election's group: {@value}. */
    public static final String GROUP = "bellwether.group";

    /** This member's node id: {@value}. */
    public static final String NODE = "bellwether.node";

    private ElectionMdc() {}
}
