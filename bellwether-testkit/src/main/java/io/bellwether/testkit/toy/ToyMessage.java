package io.bellwether.testkit.toy;

import io.bellwether.elector.ElectorMessage;

/** The toy algorithm's messages: only {@link Ping}. */
public sealed interface ToyMessage extends ElectorMessage {
    /**
     * What every member sends every other one each ping interval, and a new leader at once.
     *
     * @param epoch the sender's epoch
     * @param leading whether the sender leads at that epoch
     */
    record Ping(long epoch, boolean leading) implements ToyMessage {}
}
