package io.bellwether.server.run;

import io.bellwether.server.config.Durations;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@code bellwether run} was asked to do, validated.
 *
 * @param grace how long the command has between SIGTERM and SIGKILL; empty for the default (the longest the
 *     algorithm's timing allows, at most {@link #DEFAULT_GRACE_CAP})
 * @param onExit the policy when the command exits on its own; empty for the default (resign when it fails, stay
 *     when it succeeds)
 * @param onElected a shell command run (fire and forget) each time this node becomes leader
 * @param onRevoked a shell command run (fire and forget) each time this node's leadership ends
 * @param command the program and its arguments, run while this node leads
 */
public record RunOptions(
        Optional<Duration> grace,
        Optional<OnExit> onExit,
        Optional<String> onElected,
        Optional<String> onRevoked,
        List<String> command) {
    /** The longest {@code --grace} accepted at all; the algorithm's timing usually allows less. */
    public static final Duration MAX_GRACE = Duration.ofMinutes(10);

    /** The default grace, when the algorithm's timing allows that much. */
    public static final Duration DEFAULT_GRACE_CAP = Duration.ofSeconds(5);

    /** The allowed form of {@code --grace}, for messages. */
    static final String GRACE_ALLOWED = "0ms – " + Durations.format(MAX_GRACE) + " (" + Durations.ALLOWED
            + "), and no longer than the algorithm's timing allows";

    /**
     * Checks everything that can be checked without the node's configuration.
     *
     * @throws IllegalArgumentException naming the option, the value and what is allowed
     */
    public RunOptions {
        Objects.requireNonNull(grace, "grace");
        Objects.requireNonNull(onExit, "onExit");
        Objects.requireNonNull(onElected, "onElected");
        Objects.requireNonNull(onRevoked, "onRevoked");
        command = List.copyOf(Objects.requireNonNull(command, "command"));
        if (command.isEmpty() || command.get(0).isEmpty()) {
            throw new IllegalArgumentException("COMMAND is missing: allowed a program and its arguments after"
                    + " '--', e.g. bellwether run --config node.yaml -- ./jobs.sh --all");
        }
        grace.ifPresent(RunOptions::checkGrace);
        onElected.ifPresent(h -> checkHook("--on-elected", h));
        onRevoked.ifPresent(h -> checkHook("--on-revoked", h));
    }

    /**
     * Parses {@code --grace}.
     *
     * @throws IllegalArgumentException naming {@code --grace}, the value and the allowed range
     */
    public static Duration parseGrace(String text) {
        Duration grace;
        try {
            grace = Durations.parse("--grace", text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "--grace = '" + text + "' is not a duration in range: allowed " + GRACE_ALLOWED);
        }
        return checkGrace(grace);
    }

    private static Duration checkGrace(Duration grace) {
        if (grace.isNegative() || grace.compareTo(MAX_GRACE) > 0) {
            throw new IllegalArgumentException(
                    "--grace = " + Durations.format(grace) + " is out of range: allowed " + GRACE_ALLOWED);
        }
        return grace;
    }

    private static void checkHook(String option, String hook) {
        if (hook.isBlank()) {
            throw new IllegalArgumentException(option + " = '' is empty: allowed a shell command (run by /bin/sh -c)");
        }
    }

    /**
     * The grace to use with {@code timing}: the one asked for, or the default.
     *
     * @throws IllegalArgumentException naming {@code --grace} and the algorithm's keys when it does not fit
     */
    Duration graceFor(Optional<LeaderTiming> timing) {
        if (grace.isPresent()) {
            timing.ifPresent(t -> t.check(grace.get()));
            return grace.get();
        }
        if (timing.isEmpty()) {
            return Duration.ZERO;
        }
        Duration max = timing.get().maxGrace();
        timing.get().check(Duration.ZERO); // refuses a timing that leaves no room at all, naming the keys
        return max.compareTo(DEFAULT_GRACE_CAP) < 0 ? max : DEFAULT_GRACE_CAP;
    }
}
