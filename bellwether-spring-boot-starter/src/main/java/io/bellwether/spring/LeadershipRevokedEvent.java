package io.bellwether.spring;

import io.bellwether.Election;
import io.bellwether.Leadership;
import io.bellwether.RevocationReason;
import org.springframework.context.ApplicationEvent;

/**
 * This instance's leadership ended, or is about to (before its validity ends). A resigning leader hands over only
 * after every listener of this event has returned, so keep listeners short.
 */
public class LeadershipRevokedEvent extends ApplicationEvent {
    private static final long serialVersionUID = 1L;

    private final transient Leadership leadership;
    private final RevocationReason reason;

    /**
     * @param election the election (the event's source)
     * @param leadership the leadership that ended
     * @param reason why it ended
     */
    public LeadershipRevokedEvent(Election election, Leadership leadership, RevocationReason reason) {
        super(election);
        this.leadership = leadership;
        this.reason = reason;
    }

    /** The election whose leadership ended. */
    public Election getElection() {
        return (Election) getSource();
    }

    /** The leadership that ended. */
    public Leadership getLeadership() {
        return leadership;
    }

    /** Why it ended. */
    public RevocationReason getReason() {
        return reason;
    }

    @Override
    public String toString() {
        return "LeadershipRevokedEvent[group=" + getElection().group() + ", epoch=" + leadership.epoch() + ", reason="
                + reason + "]";
    }
}
