package io.bellwether.elector;

/** A peer message that carries its sender's ranked epoch (bully, ring; see {@link RankedEpoch}). */
public interface RankedMessage extends PeerMessage {
    /** The sender's current epoch, packed as {@link RankedEpoch} describes. */
    long epoch();
}
