package io.bellwether.elector;

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
     * The store this algorithm's {@link ElectorContext#storeRequest} calls go to (the lease electors), or
     * null for algorithms that use none.
     */
    default StoreClient storeClient() {
        return null;
    }

    /**
     * Whether, with this configuration, the highest live member id ends up leading once faults stop (the
     * simulator checks it when true). Bully with pre-emption and ring promise it; the default is false.
     */
    default boolean highestIdLeads() {
        return false;
    }
}
