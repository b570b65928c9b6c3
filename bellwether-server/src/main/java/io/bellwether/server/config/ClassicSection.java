package io.bellwether.server.config;

import io.bellwether.bully.BullyConfig;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.invitation.InvitationConfig;
import io.bellwether.ring.RingConfig;
import java.util.List;
import java.util.Map;

/**
 * Reads the section of a classic algorithm ({@code bully:}, {@code ring:}, {@code invitation:}). Each key goes
 * through the algorithm's own builder, so the node's messages and the library's agree.
 */
final class ClassicSection {
    static final Map<String, List<String>> KEYS = Map.of(
            "bully",
            List.of(
                    "message-time",
                    "processing-time",
                    "coordinator-timeout",
                    "heartbeat-interval",
                    "missed-heartbeats",
                    "preemption",
                    "preemption-hold-down",
                    "strict"),
            "ring",
            List.of(
                    "message-time",
                    "processing-time",
                    "hop-attempts",
                    "heartbeat-interval",
                    "missed-heartbeats",
                    "preemption-hold-down"),
            "invitation",
            List.of(
                    "check-interval",
                    "answer-timeout",
                    "merge-delay",
                    "are-you-there-interval",
                    "are-you-there-timeout",
                    "invitation-timeout",
                    "ready-timeout",
                    "lease",
                    "max-clock-drift",
                    "validity-margin",
                    "majority-gate"));

    private ClassicSection() {}

    /** The spec of the algorithm {@code section} names, its defaults when the section is absent; null after a problem. */
    static ElectorSpec read(ConfigValues top, String section) {
        List<String> keys = KEYS.get(section);
        ConfigValues s = top.section(section, "a mapping of the keys " + String.join(", ", keys));
        if (s == null) {
            return null;
        }
        int before = top.errorCount();
        s.unknownKeys(keys);
        java.util.function.Supplier<ElectorSpec> build;
        switch (section) {
            case "bully" -> {
                BullyConfig.Builder b = BullyConfig.builder();
                s.set(s.duration("message-time"), b::messageTime);
                s.set(s.duration("processing-time"), b::processingTime);
                s.set(s.duration("coordinator-timeout"), b::coordinatorTimeout);
                s.set(s.duration("heartbeat-interval"), b::heartbeatInterval);
                s.set(s.wholeNumber("missed-heartbeats", "a whole number from 2 to 100"), b::missedHeartbeats);
                s.set(s.bool("preemption"), b::preemption);
                s.set(s.duration("preemption-hold-down"), b::preemptionHoldDown);
                s.set(s.bool("strict"), b::strict);
                build = b::build;
            }
            case "ring" -> {
                RingConfig.Builder b = RingConfig.builder();
                s.set(s.duration("message-time"), b::messageTime);
                s.set(s.duration("processing-time"), b::processingTime);
                s.set(s.wholeNumber("hop-attempts", "a whole number from 1 to 10"), b::hopAttempts);
                s.set(s.duration("heartbeat-interval"), b::heartbeatInterval);
                s.set(s.wholeNumber("missed-heartbeats", "a whole number from 2 to 100"), b::missedHeartbeats);
                s.set(s.duration("preemption-hold-down"), b::preemptionHoldDown);
                build = b::build;
            }
            default -> {
                InvitationConfig.Builder b = InvitationConfig.builder();
                s.set(s.duration("check-interval"), b::checkInterval);
                s.set(s.duration("answer-timeout"), b::answerTimeout);
                s.set(s.duration("merge-delay"), b::mergeDelay);
                s.set(s.duration("are-you-there-interval"), b::areYouThereInterval);
                s.set(s.duration("are-you-there-timeout"), b::areYouThereTimeout);
                s.set(s.duration("invitation-timeout"), b::invitationTimeout);
                s.set(s.duration("ready-timeout"), b::readyTimeout);
                s.set(s.duration("lease"), b::lease);
                s.set(s.decimal("max-clock-drift", "a number from 0 to 0.1"), b::maxClockDrift);
                s.set(s.duration("validity-margin"), b::validityMargin);
                s.set(s.bool("majority-gate"), b::majorityGate);
                build = b::build;
            }
        }
        if (top.errorCount() > before) {
            return null;
        }
        return s.build(build);
    }
}
