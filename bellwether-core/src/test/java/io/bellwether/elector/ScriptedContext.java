package io.bellwether.elector;

import io.bellwether.NodeId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * A hand-driven {@link ElectorContext} for unit tests: the test sets the clock, delivers events and reads
 * back exactly what the elector asked for (sends, timers, persisted state, announcements).
 */
public final class ScriptedContext implements ElectorContext {
    /** One message the elector sent. */
    public record Sent(NodeId to, ElectorMessage message) {}

    /** One announcement. */
    public record Announced(ElectorState state, ChangeReason reason) {}

    private final NodeId self;
    private final List<NodeId> members;
    private final SplittableRandom random;
    private long now;
    private StoredState stored = StoredState.EMPTY;
    private final List<Sent> sent = new ArrayList<>();
    private final Map<String, Long> timers = new HashMap<>();
    private final Map<String, TimerKey> timerKeys = new HashMap<>();
    private final List<Announced> announced = new ArrayList<>();
    private final List<StoredState> persisted = new ArrayList<>();
    /** Index into {@link #sent} at each persist: sends before it happened before the persist. */
    private final List<Integer> sentCountAtPersist = new ArrayList<>();
    /** Index into {@link #sent} at each announcement: sends before it happened before the announcement. */
    private final List<Integer> sentCountAtAnnounce = new ArrayList<>();

    private final List<StoreRequest> storeRequests = new ArrayList<>();
    /** Index into {@link #storeRequests} at each announcement. */
    private final List<Integer> storeRequestCountAtAnnounce = new ArrayList<>();

    private long validUntil = Long.MIN_VALUE;
    private final List<Optional<NodeId>> successors = new ArrayList<>();
    private RuntimeException persistFailure;

    public ScriptedContext(NodeId self, List<NodeId> members, long seed) {
        this.self = self;
        this.members = members.stream().sorted().toList();
        this.random = new SplittableRandom(seed);
    }

    @Override
    public NodeId self() {
        return self;
    }

    @Override
    public List<NodeId> members() {
        return members;
    }

    @Override
    public long nanoTime() {
        return now;
    }

    @Override
    public RandomGenerator random() {
        return random;
    }

    @Override
    public void send(NodeId to, ElectorMessage message) {
        sent.add(new Sent(to, message));
    }

    @Override
    public void schedule(TimerKey key, long delayNanos) {
        if (delayNanos < 0) {
            throw new AssertionError("negative delay for " + key.name() + ": " + delayNanos);
        }
        timers.put(key.name(), now + delayNanos);
        timerKeys.put(key.name(), key);
    }

    @Override
    public void cancel(TimerKey key) {
        timers.remove(key.name());
    }

    @Override
    public StoredState storedState() {
        return stored;
    }

    @Override
    public void persist(StoredState state) {
        if (persistFailure != null) {
            throw persistFailure;
        }
        stored = state;
        persisted.add(state);
        sentCountAtPersist.add(sent.size());
    }

    @Override
    public void announce(ElectorState state, ChangeReason reason) {
        announced.add(new Announced(state, reason));
        sentCountAtAnnounce.add(sent.size());
        storeRequestCountAtAnnounce.add(storeRequests.size());
    }

    @Override
    public void validUntil(long nanos) {
        validUntil = nanos;
    }

    @Override
    public void successor(Optional<NodeId> member) {
        successors.add(member);
    }

    @Override
    public void storeRequest(StoreRequest request) {
        storeRequests.add(request);
    }

    // ---- driving ----

    public void advanceMillis(long millis) {
        now += millis * 1_000_000;
    }

    public void setNanos(long nanos) {
        now = nanos;
    }

    /** The deadline of an armed timer, if armed. */
    public Optional<Long> deadline(String timer) {
        return Optional.ofNullable(timers.get(timer));
    }

    public boolean armed(String timer) {
        return timers.containsKey(timer);
    }

    /** Moves the clock to the timer's deadline, disarms it and returns its key, for the test to deliver. */
    public TimerKey fire(String timer) {
        Long at = timers.remove(timer);
        if (at == null) {
            throw new AssertionError("timer " + timer + " is not armed; armed: " + timers.keySet());
        }
        now = Math.max(now, at);
        return timerKeys.get(timer);
    }

    public void storeState(StoredState state) {
        stored = state;
    }

    public void failPersistWith(RuntimeException failure) {
        persistFailure = failure;
    }

    // ---- reading back ----

    /** Messages sent since the last call, then forgets them. */
    public List<Sent> takeSent() {
        List<Sent> copy = List.copyOf(sent);
        sent.clear();
        sentCountAtPersist.clear();
        sentCountAtAnnounce.clear();
        return copy;
    }

    /** Store requests made since the last call, then forgets them. */
    public List<StoreRequest> takeStoreRequests() {
        List<StoreRequest> copy = List.copyOf(storeRequests);
        storeRequests.clear();
        storeRequestCountAtAnnounce.clear();
        return copy;
    }

    public List<Sent> sent() {
        return List.copyOf(sent);
    }

    public List<Announced> announcements() {
        return List.copyOf(announced);
    }

    public Announced lastAnnouncement() {
        return announced.get(announced.size() - 1);
    }

    public List<StoredState> persisted() {
        return List.copyOf(persisted);
    }

    /** How many messages had been sent (since the last {@link #takeSent()}) when the latest persist ran. */
    public int sentBeforeLastPersist() {
        return sentCountAtPersist.isEmpty() ? -1 : sentCountAtPersist.get(sentCountAtPersist.size() - 1);
    }

    /**
     * How many messages had been sent (since the last {@link #takeSent()}) when the latest announcement was made;
     * -1 if none was made since.
     */
    public int sentBeforeLastAnnouncement() {
        return sentCountAtAnnounce.isEmpty() ? -1 : sentCountAtAnnounce.get(sentCountAtAnnounce.size() - 1);
    }

    /**
     * How many store requests had been made (since the last {@link #takeStoreRequests()}) when the latest
     * announcement was made; -1 if none was made since.
     */
    public int storeRequestsBeforeLastAnnouncement() {
        return storeRequestCountAtAnnounce.isEmpty()
                ? -1
                : storeRequestCountAtAnnounce.get(storeRequestCountAtAnnounce.size() - 1);
    }

    /** Every successor the elector reported, oldest first. */
    public List<Optional<NodeId>> successors() {
        return List.copyOf(successors);
    }

    public long validUntil() {
        return validUntil;
    }
}
