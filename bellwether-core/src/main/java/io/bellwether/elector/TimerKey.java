package io.bellwether.elector;

/** Names one of an elector's timers; electors usually implement it with an enum. */
public interface TimerKey {
    String name();
}
