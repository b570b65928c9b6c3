package io.bellwether.examples.jobs;

import io.bellwether.LeaderView;
import io.bellwether.spring.LeaderChangedEvent;
import io.bellwether.spring.LeaderElectedEvent;
import io.bellwether.spring.LeadershipRevokedEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/** One log line per change of leadership, as this instance sees it: the story the example tells. */
@Component
public class LeadershipLog {
    private static final Logger log = LoggerFactory.getLogger(LeadershipLog.class);

    /**
     * This instance leads.
     *
     * @param event its new leadership
     */
    @EventListener
    public void elected(LeaderElectedEvent event) {
        log.info(
                "{} leads group {} in epoch {}",
                event.getElection().self().value(),
                event.getElection().group(),
                event.getLeadership().epoch());
    }

    /**
     * This instance's leadership ended.
     *
     * @param event the leadership and why
     */
    @EventListener
    public void revoked(LeadershipRevokedEvent event) {
        log.info(
                "{} no longer leads (epoch {}): {}",
                event.getElection().self().value(),
                event.getLeadership().epoch(),
                event.getReason());
    }

    /**
     * The leader this instance knows of changed.
     *
     * @param event the new leader, if one is known
     */
    @EventListener
    public void changed(LeaderChangedEvent event) {
        String self = event.getElection().self().value();
        event.getLeader()
                .ifPresentOrElse(
                        (LeaderView leader) -> log.info(
                                "{} sees leader {} in epoch {}",
                                self,
                                leader.leader().value(),
                                leader.epoch()),
                        () -> log.info("{} sees no leader", self));
    }
}
