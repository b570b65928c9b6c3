package io.bellwether.spring;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.LeaderView;
import io.bellwether.Leadership;
import io.bellwether.RevocationReason;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;

/** Turns one election's events into Spring application events. */
final class EventPublisher implements ElectionListener {
    private static final Logger log = LoggerFactory.getLogger(EventPublisher.class);

    private final Election election;
    private final ApplicationEventPublisher publisher;

    EventPublisher(Election election, ApplicationEventPublisher publisher) {
        this.election = election;
        this.publisher = publisher;
    }

    @Override
    public void elected(Leadership leadership) {
        publish(new LeaderElectedEvent(election, leadership));
    }

    @Override
    public void revoked(Leadership leadership, RevocationReason reason) {
        publish(new LeadershipRevokedEvent(election, leadership, reason));
    }

    @Override
    public void leaderChanged(Optional<LeaderView> leader) {
        publish(new LeaderChangedEvent(election, leader));
    }

    private void publish(Object event) {
        try {
            publisher.publishEvent(event);
        } catch (RuntimeException e) {
            // A failing application listener must not cut the election's other listeners off.
            log.warn("an application listener of {} failed", event, e);
        }
    }
}
