package io.bellwether.elector;

/**
 * A message of a peer algorithm (bully, ring, invitation): it carries an id unique per sender, by which receivers
 * drop duplicates (see {@link RecentMessageIds}).
 */
public interface PeerMessage extends ElectorMessage {
    /** Unique per sender (never reused by the same process; a restarted process draws a new range). */
    long messageId();
}
