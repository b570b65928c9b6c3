package io.bellwether.bench.peers;

import java.io.PrintStream;
import java.time.Instant;
import java.util.Optional;

/**
 * The lines every node main prints on its standard output, one per event, and their parsing: {@code bw-peer ready
 * ID} once started and joined, {@code bw-peer leader NANOS} on becoming leader, {@code bw-peer follower NANOS} on
 * ceasing to lead, {@code bw-peer statements TOTAL} once a second (lease systems). NANOS is wall-clock time in
 * nanoseconds since 1970, taken in the callback that reports the change.
 */
public final class PeerProtocol {
    /** The first word of every protocol line. */
    public static final String PREFIX = "bw-peer";

    private PeerProtocol() {}

    /** What a protocol line reports. */
    public enum Kind {
        /** The node started and joined its group. */
        READY,
        /** The node became leader. */
        LEADER,
        /** The node stopped leading. */
        FOLLOWER,
        /** The node's JDBC statement count since it started. */
        STATEMENTS
    }

    /**
     * One parsed protocol line.
     *
     * @param kind what happened
     * @param value the wall-clock nanoseconds of a leader or follower line, the total of a statements line, 0 for
     *     ready
     * @param text the argument as printed (the node id of a ready line)
     */
    public record Event(Kind kind, long value, String text) {}

    /** Wall-clock time now, nanoseconds since 1970. */
    public static long wallNanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /** Prints {@code bw-peer ready ID}, flushed. */
    public static void ready(PrintStream out, String id) {
        print(out, "ready " + id);
    }

    /** Prints {@code bw-peer leader NANOS} with the time now, flushed. */
    public static void leader(PrintStream out) {
        print(out, "leader " + wallNanos());
    }

    /** Prints {@code bw-peer follower NANOS} with the time now, flushed. */
    public static void follower(PrintStream out) {
        print(out, "follower " + wallNanos());
    }

    private static void print(PrintStream out, String line) {
        synchronized (out) {
            out.println(PREFIX + " " + line);
            out.flush();
        }
    }

    /** The event a line reports; empty for any other line (logging) or a malformed protocol line. */
    public static Optional<Event> parse(String line) {
        String[] words = line.trim().split("\\s+");
        if (words.length != 3 || !words[0].equals(PREFIX)) {
            return Optional.empty();
        }
        try {
            return switch (words[1]) {
                case "ready" -> Optional.of(new Event(Kind.READY, 0, words[2]));
                case "leader" -> Optional.of(new Event(Kind.LEADER, Long.parseLong(words[2]), words[2]));
                case "follower" -> Optional.of(new Event(Kind.FOLLOWER, Long.parseLong(words[2]), words[2]));
                case "statements" -> Optional.of(new Event(Kind.STATEMENTS, Long.parseLong(words[2]), words[2]));
                default -> Optional.empty();
            };
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
