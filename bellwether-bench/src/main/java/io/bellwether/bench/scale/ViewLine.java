package io.bellwether.bench.scale;

import java.util.Optional;

/**
 * One line a {@link ScaleNode} prints when the leader its member knows for a group changes: {@code scale view GROUP
 * LEADER EPOCH NANOS}, or {@code scale view GROUP - 0 NANOS} when it knows none. {@code NANOS} is the member's own
 * stamp on the change ({@link io.bellwether.LeaderView#learnedAtNanos()}, {@link System#nanoTime()}: on Linux
 * CLOCK_MONOTONIC, one clock for every process of the machine, so the driver can compare it with its own).
 *
 * @param group the group's index: {@code 12} for group {@code g12}
 * @param leader the leader's id, empty when the member knows none
 * @param epoch the leader's epoch, 0 when there is none
 * @param nanos when the member learned it, on {@link System#nanoTime()}'s clock
 */
record ViewLine(int group, Optional<String> leader, long epoch, long nanos) {
    static final String PREFIX = "scale view ";

    /** The name of group {@code index}. */
    static String groupName(int index) {
        return "g" + index;
    }

    /** The line, without its line end. */
    String format() {
        return PREFIX + groupName(group) + " " + leader.orElse("-") + " " + epoch + " " + nanos;
    }

    /**
     * {@code line} as a view line; empty for any other line (a node's other output).
     *
     * @throws IllegalArgumentException if it starts as a view line but is malformed
     */
    static Optional<ViewLine> parse(String line) {
        if (!line.startsWith(PREFIX)) {
            return Optional.empty();
        }
        String[] f = line.substring(PREFIX.length()).split(" ");
        if (f.length != 4 || f[0].length() < 2 || f[0].charAt(0) != 'g') {
            throw new IllegalArgumentException(
                    "malformed view line '" + line + "': expected '" + PREFIX + "gINDEX LEADER EPOCH NANOS'");
        }
        try {
            int group = Integer.parseInt(f[0].substring(1));
            long epoch = Long.parseLong(f[2]);
            long nanos = Long.parseLong(f[3]);
            if (group < 0 || epoch < 0) {
                throw new IllegalArgumentException("malformed view line '" + line + "': negative group or epoch");
            }
            Optional<String> leader = f[1].equals("-") ? Optional.empty() : Optional.of(f[1]);
            return Optional.of(new ViewLine(group, leader, epoch, nanos));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "malformed view line '" + line + "': group, epoch and nanos must be numbers", e);
        }
    }
}
