package io.bellwether.spring;

import io.bellwether.Election;
import io.bellwether.Leadership;
import org.springframework.context.ApplicationEvent;

/**
 * This instance became leader of the election's group. Published from the election's listener, on the starter's
 * listener executor (never the election's own threads); listeners run in event order for one election.
 */
public class LeaderElectedEvent extends ApplicationEvent {
    private static final long serialVersionUID = 1L;

    private final transient Leadership leadership;

    /**
     * @param election the election (the event's source)
     * @param leadership the new leadership
     */
    public LeaderElectedEvent(Election election, Leadership leadership) {
        super(election);
        this.leadership = leadership;
    }

    /** The election whose group this instance now leads. */
    public Election getElection() {
        return (Election) getSource();
    }

    /** The leadership: its epoch is the fencing token; it may end at any moment. */
    public Leadership getLeadership() {
        return leadership;
    }

    @Override
    public String toString() {
        return "LeaderElectedEvent[group=" + getElection().group() + ", epoch=" + leadership.epoch() + "]";
    }
}
