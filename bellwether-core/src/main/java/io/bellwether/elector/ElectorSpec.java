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
}
