package io.bellwether.spring;

import io.bellwether.elector.Algorithms;
import io.bellwether.elector.Trait;
import java.util.Locale;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Whether the properties ask for lease mode or a peer algorithm, as {@link Settings} decides it. */
final class ElectionMode {
    private ElectionMode() {}

    /** Whether the algorithm is known and elects through a store; false for an unknown one (Settings refuses it). */
    static boolean lease(Environment environment) {
        return leaseOrNull(environment) == Boolean.TRUE;
    }

    /** Whether the algorithm is known and elects by messages between members. */
    static boolean peers(Environment environment) {
        return leaseOrNull(environment) == Boolean.FALSE;
    }

    private static Boolean leaseOrNull(Environment environment) {
        Binder binder = Binder.get(environment);
        boolean peers = binder.bind("bellwether.peers", Bindable.mapOf(String.class, String.class))
                .map(m -> !m.isEmpty())
                .orElse(false);
        String name = binder.bind("bellwether.algorithm", String.class)
                .map(a -> a.trim().toLowerCase(Locale.ROOT))
                .orElse(peers ? "quorum" : "lease");
        return Algorithms.byName(name)
                .map(a -> a.traits().contains(Trait.USES_STORE))
                .orElse(null);
    }

    /** Matches in lease mode. */
    static final class Lease extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return lease(context.getEnvironment())
                    ? ConditionOutcome.match("bellwether elects through a lease store")
                    : ConditionOutcome.noMatch("bellwether does not elect through a lease store");
        }
    }

    /** Matches with a peer algorithm. */
    static final class Peers extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return peers(context.getEnvironment())
                    ? ConditionOutcome.match("bellwether elects between peers")
                    : ConditionOutcome.noMatch("bellwether does not elect between peers");
        }
    }
}
