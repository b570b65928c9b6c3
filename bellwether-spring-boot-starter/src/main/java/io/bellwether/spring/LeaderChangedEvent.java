package io.bellwether.spring;

import io.bellwether.Election;
import io.bellwether.LeaderView;
import java.util.Optional;
import org.springframework.context.ApplicationEvent;

/** The leader of the election's group, as this instance knows it, changed (this instance or another; or none). */
public class LeaderChangedEvent extends ApplicationEvent {
    private static final long serialVersionUID = 1L;

    private final transient Optional<LeaderView> leader;

    /**
     * @param election the election (the event's source)
     * @param leader the leader now known, empty while none is
     */
    public LeaderChangedEvent(Election election, Optional<LeaderView> leader) {
        super(election);
        this.leader = leader;
    }

    /** The election whose leader changed. */
    public Election getElection() {
        return (Election) getSource();
    }

    /** The leader now known, empty while none is. */
    public Optional<LeaderView> getLeader() {
        return leader;
    }

    @Override
    public String toString() {
        return "LeaderChangedEvent[group=" + getElection().group() + ", leader="
                + leader.map(l -> l.leader() + "@" + l.epoch()).orElse("none") + "]";
    }
}
