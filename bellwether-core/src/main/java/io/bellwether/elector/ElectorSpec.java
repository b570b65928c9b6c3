package io.bellwether.elector;

import java.time.Duration;
import java.util.Optional;

/**
 * An algorithm together with its validated configuration: what an election is told to run. Each
 * algorithm's config class implements it (for example {@code QuorumConfig}).
 */
public interface ElectorSpec {
    /** The algorithm's name as used in configuration files and metrics: {@code quorum}, {@code lease}, … */
    String algorithm();

    /** Creates the elector for one member; it must act only through {@code context}. */
    Elector create(ElectorContext context);

    /** How this algorithm's messages cross a process boundary; {@link MessageCodec#NONE} if it sends none. */
    default MessageCodec codec() {
        return MessageCodec.NONE;
    }

    /**
     * A client of the store this algorithm's {@link ElectorContext#storeRequest} calls go to (the lease electors), for
     * the election of {@code group}; null for algorithms that use none. The runtime asks once per election and
     * {@linkplain StoreClient#close() closes} the client when the election ends.
     *
     * @param group the election's group, which names what the algorithm keeps in the store (the lease)
     */
    default StoreClient storeClient(String group) {
        return null;
    }

    /**
     * Whether, with this configuration, the highest live member id ends up leading once faults stop (the
     * simulator checks it when true). Bully with pre-emption and ring promise it; the default is false.
     */
    default boolean highestIdLeads() {
        return false;
    }

    /**
     * The hold-off of a resignation when the caller names none ({@link Elector#resign}, {@code Election.resign()}):
     * long enough that the member does not win straight back while the group elects another. Empty, the default,
     * when this algorithm's electors cannot resign and stay a member.
     */
    default Optional<Duration> resignHoldOff() {
        return Optional.empty();
    }

    /**
     * This member's priority as leader, higher preferred ({@code priority} in the algorithm's section; see {@link
     * Priorities}). 0, the default, for algorithms that have no priorities.
     */
    default int priority() {
        return 0;
    }

    /**
     * This configuration with this member's priority set to {@code priority}: how the simulator gives each of its
     * nodes its own priority.
     *
     * @throws IllegalArgumentException if the priority is out of range, or this algorithm cannot honour priorities
     *     and {@code priority} is not 0
     */
    default ElectorSpec withPriority(int priority) {
        if (priority == 0) {
            return this;
        }
        throw Priorities.refused(algorithm(), priority, "it has no priorities");
    }

    /**
     * This configuration with the group's priorities {@code all} (members left out have 0), as this member {@code
     * self} is given them: the simulator's way to give its nodes priorities whatever the algorithm takes. The
     * default takes this member's own, {@link #withPriority}; an algorithm whose order is the group's (bully) takes
     * the whole map.
     *
     * @throws IllegalArgumentException as {@link #withPriority}
     */
    default ElectorSpec withPriorities(java.util.Map<io.bellwether.NodeId, Integer> all, io.bellwether.NodeId self) {
        return withPriority(all.getOrDefault(self, 0));
    }
}
