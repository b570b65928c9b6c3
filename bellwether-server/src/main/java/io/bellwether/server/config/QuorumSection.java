package io.bellwether.server.config;

import io.bellwether.quorum.QuorumConfig;
import java.time.Duration;
import java.util.List;

/** Reads the {@code quorum} section through the quorum elector's own builder, so that their messages agree. */
final class QuorumSection {
    static final String KEY = "quorum";
    static final List<String> KEYS = List.of(
            "heartbeat-interval",
            "missed-heartbeats",
            "backoff-min",
            "backoff-max",
            "scouting-timeout",
            "proposal-timeout",
            "max-clock-drift",
            "validity-margin",
            "step-down-hold-down",
            "standby");

    private QuorumSection() {}

    /** The quorum timings, the defaults when the section is absent; null after a problem. */
    static QuorumConfig read(ConfigValues top) {
        if (!top.has(KEY)) {
            return QuorumConfig.defaults();
        }
        ConfigValues q = top.section(KEY, "a mapping of the keys " + String.join(", ", KEYS));
        if (q == null) {
            return null;
        }
        int before = top.errorCount();
        q.unknownKeys(KEYS);
        QuorumConfig.Builder b = QuorumConfig.builder();
        QuorumConfig defaults = QuorumConfig.defaults();
        q.set(q.duration("heartbeat-interval"), b::heartbeatInterval);
        Integer missed = q.wholeNumber("missed-heartbeats", "a whole number from 2 to 100");
        if (missed != null) {
            try {
                b.missedHeartbeats(missed);
            } catch (IllegalArgumentException e) {
                q.error(q.name(e.getMessage())
                        + " (the election timeout, heartbeat-interval × missed-heartbeats, must exceed the"
                        + " heartbeat interval)");
            }
        }
        int beforeBackoff = top.errorCount();
        Duration backoffMin = q.duration("backoff-min");
        Duration backoffMax = q.duration("backoff-max");
        if (top.errorCount() == beforeBackoff) {
            q.apply(() -> b.backoff(
                    backoffMin == null ? defaults.backoffMin() : backoffMin,
                    backoffMax == null ? defaults.backoffMax() : backoffMax));
        }
        q.set(q.duration("scouting-timeout"), b::scoutingTimeout);
        q.set(q.duration("proposal-timeout"), b::proposalTimeout);
        q.set(q.decimal("max-clock-drift", "a number from 0 to 0.1"), b::maxClockDrift);
        q.set(q.duration("validity-margin"), b::validityMargin);
        q.set(q.duration("step-down-hold-down"), b::stepDownHoldDown);
        q.set(q.bool("standby"), b::standby);
        if (top.errorCount() > before) {
            return null;
        }
        return q.build(b::build);
    }
}
