package io.bellwether.elector;

/** A message between electors of one algorithm. Implementations are immutable records. */
public interface ElectorMessage {
    /** A short name of the message type, for metrics and histories. */
    default String type() {
        return getClass().getSimpleName();
    }
}
