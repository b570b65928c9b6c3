package io.bellwether.server.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * What {@code bellwether demo --groups N} watches when its nodes host several election groups: a line per
 * leadership change would flood the terminal, so it reads every live node's {@code GET /groups} a few times a
 * second and prints a compact summary whenever the picture changes (at most about once a second), e.g. {@code
 * 1000 groups: all led — n1 334, n2 333, n3 333}, and one line per failover wave the chaos causes: how many of the
 * struck node's groups were led again and how long each took from the fault.
 *
 * <p>A group counts as led when a live node (running, not paused, answering) reports itself its {@code LEADER};
 * when two do (a node just resumed that has not yet heard of the newer term), the one at the higher epoch. A group
 * a paused leader holds is thus leaderless from the demo's point of view as soon as it is paused, as a single
 * group's is.
 *
 * <p>A wave's times are each new leader's own {@code leaderSince} (the wall-clock time its node learned it leads)
 * less the wall-clock time of the fault; a group whose {@code leaderSince} is missing is timed when a poll first
 * sees it led, which overstates by up to one poll interval.
 *
 * <p>The watch runs on one thread ({@link #run}); the chaos reads its pictures ({@link #settled}) and registers
 * its faults ({@link #fault}) from another.
 */
final class GroupsWatch {
    /** How often the live nodes are asked for their groups. */
    static final Duration POLL = Duration.ofMillis(250);
    /** The least time between two summary lines. */
    static final Duration SUMMARY_EVERY = Duration.ofSeconds(1);

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A group's leader as a live node reports it of itself. */
    record Led(String node, long epoch, long sinceMillis) {}

    /**
     * One reading of the cluster.
     *
     * @param led each led group's leader
     * @param state each member's state when not live and answering: {@code killed}, {@code paused}, {@code
     *     starting}; absent for a member that answered
     * @param takenNanos when it was taken ({@link System#nanoTime()})
     */
    record Picture(Map<String, Led> led, Map<String, String> state, List<String> members, long takenNanos) {
        /** How many groups each member leads, every member present, in member order. */
        Map<String, Integer> counts() {
            Map<String, Integer> counts = new LinkedHashMap<>();
            members.forEach(m -> counts.put(m, 0));
            led.values().forEach(l -> counts.merge(l.node(), 1, Integer::sum));
            return counts;
        }

        /** The member leading the most groups (the first of them on a tie), with its groups' epochs. */
        Optional<String> busiest() {
            String best = null;
            int most = 0;
            for (Map.Entry<String, Integer> e : counts().entrySet()) {
                if (e.getValue() > most) {
                    best = e.getKey();
                    most = e.getValue();
                }
            }
            return Optional.ofNullable(best);
        }

        /** The groups {@code node} leads, with the epoch of each. */
        Map<String, Long> ledBy(String node) {
            Map<String, Long> groups = new HashMap<>();
            led.forEach((group, l) -> {
                if (l.node().equals(node)) {
                    groups.put(group, l.epoch());
                }
            });
            return groups;
        }
    }

    /** The groups a fault took their leader from, waiting to be led again. */
    private static final class Wave {
        final String target;
        final String cause;
        final long atMillis;
        final int size;
        /** Each group not yet led again, with the epoch its struck leader had. */
        final Map<String, Long> waiting;

        final List<Long> tookMillis = new ArrayList<>();
        int kept;

        Wave(String target, String cause, long atMillis, Map<String, Long> groups) {
            this.target = target;
            this.cause = cause;
            this.atMillis = atMillis;
            this.size = groups.size();
            this.waiting = new HashMap<>(groups);
        }
    }

    private final LocalCluster cluster;
    private final int groups;
    private final Duration statusTimeout;
    private final Consumer<String> log;
    private volatile Picture latest;
    /** The wave the last fault started, until it completes; guarded by {@code this}. */
    private Wave wave;

    GroupsWatch(LocalCluster cluster, int groups, Duration statusTimeout, Consumer<String> log) {
        this.cluster = cluster;
        this.groups = groups;
        this.statusTimeout = statusTimeout;
        this.log = log;
    }

    /** Watches until {@code stop}, printing summaries and completed waves. */
    void run(CountDownLatch stop) {
        String printed = null;
        long printedAt = 0;
        try {
            do {
                Picture p = read();
                latest = p;
                progress(p);
                String summary = summary(p);
                if (!summary.equals(printed)
                        && (printed == null || p.takenNanos() - printedAt >= SUMMARY_EVERY.toNanos())) {
                    log.accept(summary);
                    printed = summary;
                    printedAt = p.takenNanos();
                }
            } while (!stop.await(POLL.toMillis(), TimeUnit.MILLISECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Reads every live member's {@code /groups}. */
    Picture read() {
        List<String> members =
                cluster.members().stream().map(LocalCluster.Member::id).toList();
        Map<String, Led> led = new HashMap<>();
        Map<String, String> state = new LinkedHashMap<>();
        for (String id : members) {
            if (!cluster.isRunning(id)) {
                state.put(id, "killed");
                continue;
            }
            if (cluster.isPaused(id)) {
                state.put(id, "paused");
                continue;
            }
            Optional<String> body = cluster.get(id, "/groups", statusTimeout);
            if (body.isEmpty()) {
                state.put(id, "starting");
                continue;
            }
            try {
                for (JsonNode g : JSON.readTree(body.get()).path("groups")) {
                    if (!"LEADER".equals(g.path("role").asText())
                            || !id.equals(g.path("leader").asText())) {
                        continue;
                    }
                    Led mine = new Led(id, g.path("epoch").asLong(), millis(g.path("leaderSince")));
                    led.merge(g.path("group").asText(), mine, (a, b) -> b.epoch() > a.epoch() ? b : a);
                }
            } catch (IOException e) {
                state.put(id, "starting");
            }
        }
        return new Picture(led, state, members, System.nanoTime());
    }

    private static long millis(JsonNode since) {
        if (since.isTextual()) {
            try {
                return Instant.parse(since.asText()).toEpochMilli();
            } catch (DateTimeParseException e) {
                return -1;
            }
        }
        return -1;
    }

    /** {@code N groups: all led — n1 334, n2 333, n3 0 (killed)} or {@code N groups: 212 leaderless — ...}. */
    String summary(Picture p) {
        int leaderless = groups - p.led().size();
        StringBuilder line = new StringBuilder()
                .append(groups)
                .append(" groups: ")
                .append(leaderless == 0 ? "all led" : leaderless + " leaderless")
                .append(" —");
        String sep = " ";
        for (Map.Entry<String, Integer> e : p.counts().entrySet()) {
            line.append(sep).append(e.getKey()).append(' ').append(e.getValue());
            String state = p.state().get(e.getKey());
            if (state != null) {
                line.append(" (").append(state).append(')');
            }
            sep = ", ";
        }
        return line.toString();
    }

    /**
     * Waits up to {@code patience} for a picture taken after {@code afterNanos} in which every group is led and no
     * failover wave is still open; the latest picture then (settled or not), or empty if {@code stop} came.
     */
    Optional<Picture> settled(long afterNanos, CountDownLatch stop, Duration patience) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            Picture p = latest;
            boolean fresh = p != null && p.takenNanos() - afterNanos > 0;
            boolean calm;
            synchronized (this) {
                calm = wave == null;
            }
            if (fresh && calm && p.led().size() == groups) {
                return Optional.of(p);
            }
            if (System.nanoTime() - deadline >= 0) {
                return Optional.ofNullable(p);
            }
            if (stop.await(50, TimeUnit.MILLISECONDS)) {
                return Optional.empty();
            }
        }
    }

    /**
     * The chaos is about to strike {@code target}, which leads {@code groups} (each with its epoch) as far as the
     * last picture shows: the watch times how long each takes to be led again. A wave still open is reported as it
     * stands.
     */
    synchronized void fault(String target, String cause, Map<String, Long> groups) {
        if (wave != null) {
            report(wave, true);
            wave = null;
        }
        if (!groups.isEmpty()) {
            wave = new Wave(target, cause, System.currentTimeMillis(), groups);
        }
    }

    /** Settles what {@code p} shows of the open wave, and reports it once every group is led again. */
    private synchronized void progress(Picture p) {
        Wave w = wave;
        if (w == null) {
            return;
        }
        long seenMillis = System.currentTimeMillis();
        for (var it = w.waiting.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            Led now = p.led().get(e.getKey());
            if (now == null) {
                continue;
            }
            if (now.node().equals(w.target) && now.epoch() == e.getValue()) {
                // The struck leader is back (resumed) and still leads it: no failover took place.
                w.kept++;
                it.remove();
                continue;
            }
            long since = now.sinceMillis() >= 0 ? now.sinceMillis() : seenMillis;
            if (since >= w.atMillis) {
                w.tookMillis.add(since - w.atMillis);
            }
            // else it changed hands before the fault, between the picture the chaos read and its strike: not timed
            it.remove();
        }
        if (w.waiting.isEmpty()) {
            report(w, false);
            wave = null;
        }
    }

    private void report(Wave w, boolean cut) {
        List<Long> took = new ArrayList<>(w.tookMillis);
        Collections.sort(took);
        StringBuilder line = new StringBuilder(w.cause).append(": ");
        if (cut) {
            line.append(took.size())
                    .append(" of ")
                    .append(w.target)
                    .append("'s ")
                    .append(w.size);
        } else {
            line.append(w.target).append("'s ").append(took.size());
        }
        line.append(" groups re-led");
        if (!took.isEmpty()) {
            line.append(String.format(
                    " in p50 %d ms, max %d ms after the fault",
                    took.get((took.size() - 1) / 2), took.get(took.size() - 1)));
        }
        line.append(" (from each new leader's leaderSince)");
        if (w.kept > 0) {
            line.append("; ")
                    .append(w.kept)
                    .append(" kept by ")
                    .append(w.target)
                    .append(" at the same epoch");
        }
        if (cut) {
            line.append("; ").append(w.waiting.size()).append(" still leaderless at the next fault");
        }
        log.accept(line.toString());
    }
}
