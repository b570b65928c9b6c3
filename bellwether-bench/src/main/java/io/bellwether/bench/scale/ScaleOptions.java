package io.bellwether.bench.scale;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The options of {@link ScaleGroups}.
 *
 * @param groups the group counts to measure, in order (each 1 to {@value #MAX_GROUPS})
 * @param nodes member processes (3 to 9)
 * @param idle how long idle CPU is measured after all groups agree
 * @param ceiling how long to wait for all groups to agree, and again for the killed member's groups to be re-led
 * @param trials runs per group count
 * @param maxHeap each member's {@code -Xmx} value, e.g. {@code 512m}
 * @param pause how long every member is stopped at once (SIGSTOP) before the kill -9; zero for no pause
 */
record ScaleOptions(
        List<Integer> groups,
        int nodes,
        Duration idle,
        Duration ceiling,
        int trials,
        String maxHeap,
        Duration pause,
        boolean spread) {
    static final int MAX_GROUPS = 20_000;
    static final String USAGE = "usage: ScaleGroups --groups G[,G...] [--nodes N] [--idle-seconds S]"
            + " [--ceiling-seconds S] [--trials T] [--xmx SIZE] [--pause-ms MS] [--spread true|false]   (defaults:"
            + " --nodes 3 --idle-seconds 30 --ceiling-seconds 120 --trials 1 --xmx 512m --pause-ms 2000 --spread false;"
            + " --pause-ms 0 skips the pause; --spread true builds every election with spreadLeaders)";

    private static final Pattern HEAP = Pattern.compile("[1-9][0-9]{0,6}[kKmMgG]?");

    /**
     * Parses the command line.
     *
     * @throws IllegalArgumentException naming the option, the value and what is allowed
     */
    static ScaleOptions parse(String... args) {
        Map<String, String> given = new TreeMap<>();
        for (int i = 0; i < args.length; i += 2) {
            String name = args[i];
            if (!List.of(
                            "--groups",
                            "--nodes",
                            "--idle-seconds",
                            "--ceiling-seconds",
                            "--trials",
                            "--xmx",
                            "--pause-ms",
                            "--spread")
                    .contains(name)) {
                throw new IllegalArgumentException("unknown option '" + name + "'; " + USAGE);
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(name + " needs a value; " + USAGE);
            }
            if (given.put(name, args[i + 1]) != null) {
                throw new IllegalArgumentException(name + " is given twice: allowed once");
            }
        }
        if (!given.containsKey("--groups")) {
            throw new IllegalArgumentException("--groups is required; " + USAGE);
        }
        List<Integer> groups = new ArrayList<>();
        for (String g : given.get("--groups").split(",", -1)) {
            groups.add(number("--groups", g.trim(), 1, MAX_GROUPS));
        }
        String heap = given.getOrDefault("--xmx", "512m");
        if (!HEAP.matcher(heap).matches()) {
            throw new IllegalArgumentException("--xmx = '" + heap + "' is not a heap size: allowed a whole number"
                    + " with an optional unit k, m or g, such as 512m or 2g");
        }
        return new ScaleOptions(
                List.copyOf(groups),
                number("--nodes", given.getOrDefault("--nodes", "3"), 3, 9),
                Duration.ofSeconds(number("--idle-seconds", given.getOrDefault("--idle-seconds", "30"), 1, 3600)),
                Duration.ofSeconds(
                        number("--ceiling-seconds", given.getOrDefault("--ceiling-seconds", "120"), 1, 3600)),
                number("--trials", given.getOrDefault("--trials", "1"), 1, 100),
                heap,
                Duration.ofMillis(number("--pause-ms", given.getOrDefault("--pause-ms", "2000"), 0, 60_000)),
                bool("--spread", given.getOrDefault("--spread", "false")));
    }

    private static boolean bool(String option, String text) {
        return switch (text) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(option + " = '" + text + "': allowed true or false");
        };
    }

    private static int number(String option, String text, int min, int max) {
        int n;
        try {
            n = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    option + " = '" + text + "' is not a whole number: allowed " + min + " to " + max);
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(option + " = " + n + " is out of range: allowed " + min + " to " + max);
        }
        return n;
    }
}
