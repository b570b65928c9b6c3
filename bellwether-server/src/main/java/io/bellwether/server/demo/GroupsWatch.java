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
 * leadership change would flood the terminal, so it reads every live node's {@code GET /status} summary a few
 * times a second and prints a compact line whenever the picture changes (at most about once a second), e.g. {@code
 * 1000 groups: all led — n1 334, n2 333, n3 333}, and one line per failover wave the chaos causes: how many of the
 * struck node's groups were led again and how long each took from the fault. Only while a wave is open does it read
 * every live node's {@code GET /groups} (each lists every group, a hundred kilobytes for a thousand groups).
 *
 * <p>A group counts as led when a live node (running, not paused, answering) reports itself its {@code LEADER}
 * (the summary's {@code groups.leading}); the leaderless are the groups no live node leads. A node just resumed
 * that has not yet heard of a newer term may still count a group another node now leads, for a moment: the
 * summary then shows one group too few leaderless (in a wave, the claim at the higher epoch counts). A group a
 * paused leader holds is leaderless from the demo's point of view as soon as it is paused, as a single group's
 * is.
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
    /** The exit status of a process ended by SIGKILL. */
    private static final int KILLED = 128 + 9;

    /** A group's leader as a live node reports it of itself. */
    record Led(String node, long epoch, long sinceMillis) {}

    /**
     * One reading of the cluster.
     *
     * @param counts how many groups each member leads, every member present, in member order
     * @param state each member's state when not live and answering: {@code killed}, {@code exited N} (ended by
     *     itself, with status N), {@code paused}, {@code starting}; absent for a member that answered
     * @param led each led group's leader, when read in full (while a wave is open); else null
     * @param followed {@code group leader epoch} for every leader some other live node follows, when read in full;
     *     else null
     * @param takenNanos when its reading began ({@link System#nanoTime()})
     */
    record Picture(
            Map<String, Integer> counts,
            Map<String, String> state,
            Map<String, Led> led,
            java.util.Set<String> followed,
            long takenNanos) {
        /** How many groups a live member leads. */
        int ledCount(int groups) {
            int sum = counts.values().stream().mapToInt(Integer::intValue).sum();
            return Math.min(groups, sum);
        }

        /** The member leading the most groups (the first of them on a tie). */
        Optional<String> busiest() {
            String best = null;
            int most = 0;
            for (Map.Entry<String, Integer> e : counts.entrySet()) {
                if (e.getValue() > most) {
                    best = e.getKey();
                    most = e.getValue();
                }
            }
            return Optional.ofNullable(best);
        }
    }

    /** The groups a fault took their leader from, waiting to be led again. */
    private static final class Wave {
        final String target;
        final String cause;
        final long atMillis;
        final long atNanos = System.nanoTime();
        final int size;
        /** Each group not yet led again, with the epoch its struck leader had. */
        final Map<String, Long> waiting;

        final List<Long> tookMillis = new ArrayList<>();
        int kept;

        Wave(String target, String cause, long atMillis, Map<String, Led> groups) {
            this.target = target;
            this.cause = cause;
            this.atMillis = atMillis;
            this.size = groups.size();
            this.waiting = new HashMap<>();
            groups.forEach((group, led) -> waiting.put(group, led.epoch()));
        }
    }

    private final LocalCluster cluster;
    private final int groups;
    private final Duration statusTimeout;
    private final Consumer<String> log;
    /** The picture the watch last printed a summary of. */
    private volatile Picture printed;
    /** Set when a wave has been reported, so that the summary after it is printed at once. */
    private volatile boolean reported;
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
        String last = null;
        long lastAt = 0;
        try {
            do {
                boolean full;
                synchronized (this) {
                    full = wave != null;
                }
                Picture p = read(full);
                progress(p);
                String summary = summary(p);
                boolean due = last == null || reported || p.takenNanos() - lastAt >= SUMMARY_EVERY.toNanos();
                if (due && !summary.equals(last)) {
                    log.accept(summary);
                    last = summary;
                    lastAt = p.takenNanos();
                    reported = false;
                }
                if (summary.equals(last)) {
                    printed = p; // the same picture as far as the reader knows, and a fresher one
                }
            } while (!stop.await(POLL.toMillis(), TimeUnit.MILLISECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Reads every live member's {@code /status} summary, or with {@code full} its {@code /groups} (which names the
     * groups).
     */
    Picture read(boolean full) {
        long began = System.nanoTime();
        Map<String, Integer> counts = new LinkedHashMap<>();
        Map<String, String> state = new LinkedHashMap<>();
        Map<String, Led> led = full ? new HashMap<>() : null;
        java.util.Set<String> followed = full ? new java.util.HashSet<>() : null;
        for (LocalCluster.Member m : cluster.members()) {
            String id = m.id();
            counts.put(id, 0);
            if (!cluster.isRunning(id)) {
                // SIGKILL ends a process with 128 + 9; a node out of heap exits with 3 (-XX:+ExitOnOutOfMemoryError).
                int status = cluster.exitStatus(id).orElse(KILLED);
                state.put(id, status == KILLED ? "killed" : "exited " + status);
                continue;
            }
            if (cluster.isPaused(id)) {
                state.put(id, "paused");
                continue;
            }
            try {
                if (full) {
                    Optional<Map<String, Led>> mine = ledBy(id, followed);
                    if (mine.isEmpty()) {
                        state.put(id, "starting");
                        continue;
                    }
                    counts.put(id, mine.get().size());
                    mine.get().forEach((group, l) -> led.merge(group, l, (a, b) -> b.epoch() > a.epoch() ? b : a));
                } else {
                    Optional<String> body = cluster.get(id, "/status", statusTimeout);
                    JsonNode leading = body.isEmpty()
                            ? null
                            : JSON.readTree(body.get()).path("groups").path("leading");
                    if (leading == null || !leading.canConvertToInt()) {
                        state.put(id, "starting");
                        continue;
                    }
                    counts.put(id, leading.intValue());
                }
            } catch (IOException e) {
                state.put(id, "starting");
            }
        }
        return new Picture(counts, state, led, followed, began);
    }

    /** The groups member {@code id} leads as its {@code /groups} says, or empty if it does not answer. */
    Optional<Map<String, Led>> ledBy(String id) throws IOException {
        return ledBy(id, new java.util.HashSet<>());
    }

    /** As {@link #ledBy(String)}, adding to {@code followed} each other group's leader it follows ({@link Picture}). */
    private Optional<Map<String, Led>> ledBy(String id, java.util.Set<String> followed) throws IOException {
        Optional<String> body = cluster.get(id, "/groups", statusTimeout);
        if (body.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Led> led = new HashMap<>();
        for (JsonNode g : JSON.readTree(body.get()).path("groups")) {
            String leader = g.path("leader").asText(null);
            if ("LEADER".equals(g.path("role").asText()) && id.equals(leader)) {
                led.put(g.path("group").asText(), new Led(id, g.path("epoch").asLong(), millis(g.path("leaderSince"))));
            } else if (leader != null) {
                followed.add(g.path("group").asText() + " " + leader + " "
                        + g.path("epoch").asLong());
            }
        }
        return Optional.of(led);
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
        int leaderless = groups - p.ledCount(groups);
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
     * failover wave is still open, and which the watch has printed (so that what the chaos strikes is what the
     * reader was shown); the latest picture printed then (settled or not), or empty if {@code stop} came.
     */
    Optional<Picture> settled(long afterNanos, CountDownLatch stop, Duration patience) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            Picture p = printed;
            boolean fresh = p != null && p.takenNanos() - afterNanos > 0;
            boolean calm;
            synchronized (this) {
                calm = wave == null;
            }
            if (fresh && calm && p.ledCount(groups) == groups) {
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
    synchronized void fault(String target, String cause, Map<String, Led> groups) {
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
        if (w == null || p.led() == null || p.takenNanos() - w.atNanos < 0) {
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
                // The struck leader is back (resumed) and claims it still. It does lead it, no failover having taken
                // place, if another member follows it at that epoch; if not, it has yet to hear of a newer term.
                if (p.followed().contains(e.getKey() + " " + w.target + " " + e.getValue())) {
                    w.kept++;
                    it.remove();
                }
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
            reported = true;
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
