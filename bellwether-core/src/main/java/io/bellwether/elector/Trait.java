package io.bellwether.elector;

/** What an algorithm (or one of its {@link Variant}s) guarantees and needs. */
public enum Trait {
    /**
     * Never two valid leaderships at the same real time, under every fault it is built for: the simulator checks
     * that validity windows do not overlap and that no epoch has two leaders.
     */
    EXCLUSIVE,
    /**
     * Keeps working on every side of a partition, and so may have one leader per side until it heals: the
     * simulator measures the time with two leaders instead of counting it as a violation.
     */
    SPLITS_UNDER_PARTITION,
    /** Once faults stop, the highest live member id leads. */
    HIGHEST_ID_WINS,
    /** Members exchange messages: it needs a transport, and network faults apply to it. */
    PEER_MESSAGES,
    /** It elects through a shared lease store: it needs one, and store faults apply to it. */
    USES_STORE
}
