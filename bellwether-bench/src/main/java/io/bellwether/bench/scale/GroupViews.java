package io.bellwether.bench.scale;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * What every member reported knowing about every group: the latest {@link ViewLine} of each (member, group), and
 * the questions the benchmark asks of them. Thread-safe: the members' reader threads {@link #apply} lines while
 * the driver asks.
 */
final class GroupViews {
    private final int groups;
    private final Map<String, ViewLine[]> views = new HashMap<>();
    private long applied; // guarded by this

    /**
     * @param groups how many groups each member runs ({@code g0} to {@code g(groups-1)})
     * @param members the members' ids
     */
    GroupViews(int groups, Collection<String> members) {
        this.groups = groups;
        for (String member : members) {
            views.put(member, new ViewLine[groups]);
        }
    }

    int groups() {
        return groups;
    }

    /**
     * Records {@code member}'s view of a group, replacing its previous one.
     *
     * @throws IllegalArgumentException for an unknown member or a group out of range
     */
    synchronized void apply(String member, ViewLine line) {
        ViewLine[] of = views.get(member);
        if (of == null) {
            throw new IllegalArgumentException("unknown member '" + member + "': allowed " + views.keySet());
        }
        if (line.group() >= groups) {
            throw new IllegalArgumentException(
                    "group g" + line.group() + " out of range: allowed g0 to g" + (groups - 1));
        }
        of[line.group()] = line;
        applied++;
    }

    /** How many lines have been applied so far: unchanged between two calls means no member reported anything. */
    synchronized long applied() {
        return applied;
    }

    /**
     * The leader of a group all {@code live} members agree on, with the epoch and when the last of them learned it.
     *
     * @param leader the leader's id
     * @param epoch its epoch
     * @param agreedAtNanos the latest of the members' stamps on the views that agree
     */
    record Agreed(String leader, long epoch, long agreedAtNanos) {}

    /**
     * The leader of {@code group} that every one of {@code live} names at the same epoch, itself one of them (and so
     * naming itself); empty if they do not all agree.
     */
    synchronized Optional<Agreed> agreed(int group, Collection<String> live) {
        String leader = null;
        long epoch = -1;
        long latest = Long.MIN_VALUE;
        for (String member : live) {
            ViewLine v = views.get(member)[group];
            if (v == null || v.leader().isEmpty()) {
                return Optional.empty();
            }
            if (leader == null) {
                leader = v.leader().get();
                epoch = v.epoch();
            } else if (!leader.equals(v.leader().get()) || epoch != v.epoch()) {
                return Optional.empty();
            }
            latest = Math.max(latest, v.nanos());
        }
        if (leader == null || !live.contains(leader)) {
            return Optional.empty();
        }
        return Optional.of(new Agreed(leader, epoch, latest));
    }

    /**
     * How many groups have an agreed leader among {@code live}, and when the last of them came to agree.
     *
     * @param count groups with an agreed leader
     * @param lastAgreedAtNanos the latest {@link Agreed#agreedAtNanos()} of those groups; empty when none agrees
     */
    record Summary(int count, OptionalLong lastAgreedAtNanos) {}

    /** Counts the groups with an agreed leader among {@code live}. */
    synchronized Summary summary(Collection<String> live) {
        int count = 0;
        long last = Long.MIN_VALUE;
        for (int g = 0; g < groups; g++) {
            Optional<Agreed> a = agreed(g, live);
            if (a.isPresent()) {
                count++;
                last = Math.max(last, a.get().agreedAtNanos());
            }
        }
        return new Summary(count, count == 0 ? OptionalLong.empty() : OptionalLong.of(last));
    }

    /** How many groups some member names itself the leader of, agreed or not. */
    synchronized int selfNamedLeaders() {
        int count = 0;
        for (int g = 0; g < groups; g++) {
            for (Map.Entry<String, ViewLine[]> e : views.entrySet()) {
                ViewLine v = e.getValue()[g];
                if (v != null && e.getKey().equals(v.leader().orElse(null))) {
                    count++;
                    break;
                }
            }
        }
        return count;
    }

    /** The groups whose agreed leader (among {@code live}) is each member, by member id in order. */
    synchronized Map<String, List<Integer>> groupsByLeader(Collection<String> live) {
        Map<String, List<Integer>> led = new TreeMap<>();
        for (String member : live) {
            led.put(member, new java.util.ArrayList<>());
        }
        for (int g = 0; g < groups; g++) {
            int group = g;
            agreed(g, live).ifPresent(a -> led.get(a.leader()).add(group));
        }
        return led;
    }

    /**
     * When a member other than {@code former} first stamped itself leader of {@code group} at an epoch above {@code
     * aboveEpoch}, as its latest view says; empty while none has.
     */
    synchronized OptionalLong reledAt(int group, String former, long aboveEpoch) {
        for (Map.Entry<String, ViewLine[]> e : views.entrySet()) {
            if (e.getKey().equals(former)) {
                continue;
            }
            ViewLine v = e.getValue()[group];
            if (v != null && v.epoch() > aboveEpoch && Objects.equals(v.leader().orElse(null), e.getKey())) {
                return OptionalLong.of(v.nanos());
            }
        }
        return OptionalLong.empty();
    }
}
