package io.bellwether.quorum;

import io.bellwether.elector.ElectorContext;

/**
 * What the parts of one {@link QuorumElector} ({@link ElectionRounds}, {@link Leading}, {@link Standby})
 * share: the elector that owns the role, the leader and the term, its configuration and context, and the
 * validity bookkeeping. Each part runs on the elector's thread, called by it. Not thread-safe.
 */
abstract class QuorumPart {
    final QuorumElector elector;
    final QuorumConfig config;
    final ElectorContext ctx;
    final RoundConfirmations confirmations;

    /** Called from the elector's constructor, once its configuration, context and confirmations are set. */
    QuorumPart(QuorumElector elector) {
        this.elector = elector;
        this.config = elector.config;
        this.ctx = elector.ctx;
        this.confirmations = elector.confirmations;
    }
}
