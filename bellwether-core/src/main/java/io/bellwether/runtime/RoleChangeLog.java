package io.bellwether.runtime;

import io.bellwether.Role;
import io.bellwether.elector.ChangeReason;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Decides which role changes of one election get their INFO line, so that a member that cannot win (one that
 * keeps campaigning and losing several times a second, say) does not flood its log.
 *
 * <p>The first occurrence of a change (its from-role, to-role and reason) is logged at once and opens a window
 * of {@link #WINDOW_NANOS}; repeats of the same change within the window are only counted. The count is written as
 * one summary line ({@code FOLLOWER -> CANDIDATE (...) repeated 63 times in the last 10 s}) once the window has ended
 * and another change comes, or at once when a change that was not seen in the last window comes, so the log
 * still tells the story in order. Winning an election (to {@link Role#LEADER}), losing leadership (from it) and stopping
 * (to {@link Role#DORMANT}) are always logged, after the summaries they interrupt.
 *
 * <p>Ten seconds: short enough that a reader of the log sees a flapping member's pattern within seconds of it
 * starting and its summary soon after, long enough to turn the 6–7 lines a second of an isolated member into one
 * line per kind of change per window. Time is whatever monotonic reading the caller passes, so that tests need no
 * clock. Thread-safe (one election's loop calls it, and its close path).
 */
final class RoleChangeLog {
    /** How long repeats of one change are counted rather than logged: 10 s. */
    static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(10);

    private record Change(Role from, Role to, ChangeReason reason) {
        @Override
        public String toString() {
            return from + " -> " + to + " (" + reason + ")";
        }
    }

    private static final class Window {
        final long openedNanos;
        int repeats;
        long lastRepeatNanos;
        long lastEpoch;

        Window(long openedNanos) {
            this.openedNanos = openedNanos;
        }
    }

    /** At most one entry per (from, to, reason): a few dozen at most, as the enums bound it. */
    private final Map<Change, Window> windows = new LinkedHashMap<>();

    private final Consumer<String> summaries;

    /** @param summaries receives each summary line (the election's prefix is the caller's to add) */
    RoleChangeLog(Consumer<String> summaries) {
        this.summaries = summaries;
    }

    /**
     * Records a role change at {@code nowNanos} and says whether the caller logs its line now. Any summary due is
     * handed to the summary consumer first.
     */
    synchronized boolean admit(Role from, Role to, long epoch, ChangeReason reason, long nowNanos) {
        Change change = new Change(from, to, reason);
        boolean always = to == Role.LEADER || from == Role.LEADER || to == Role.DORMANT;
        Window open = windows.get(change);
        boolean counted = !always && open != null && nowNanos - open.openedNanos < WINDOW_NANOS;
        // A change not seen in the last window, or one always logged, breaks the pattern being counted.
        boolean breaks = always || open == null;
        // What ended, and, when the pattern breaks, everything still counted.
        for (Iterator<Map.Entry<Change, Window>> it = windows.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Change, Window> e = it.next();
            Window w = e.getValue();
            boolean ended = nowNanos - w.openedNanos >= WINDOW_NANOS;
            if (ended || (breaks && w.repeats > 0)) {
                summarise(e.getKey(), w);
                if (ended) {
                    it.remove();
                } else {
                    w.repeats = 0;
                }
            }
        }
        if (counted) {
            open.repeats++;
            open.lastRepeatNanos = nowNanos;
            open.lastEpoch = epoch;
            return false;
        }
        if (always) {
            windows.remove(change);
        } else if (!windows.containsKey(change)) {
            windows.put(change, new Window(nowNanos));
        }
        return true;
    }

    private void summarise(Change change, Window w) {
        if (w.repeats == 0) {
            return;
        }
        long seconds = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(w.lastRepeatNanos - w.openedNanos + 999_999_999L));
        summaries.accept(change + " repeated " + w.repeats + (w.repeats == 1 ? " time" : " times") + " in the last "
                + seconds + " s, the last at epoch " + w.lastEpoch);
    }
}
