package io.bellwether.bench.peers;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;

/**
 * {@link PeerComparison}'s command line: {@code [--systems a,b,...] [--scenarios kill,stop,term] [--trials N]
 * [--slow-trials N] [--idle-seconds S] [--lease-ms MS] [--failover-timeout-s S] [--jdbc-url URL] [--chart FILE.svg]
 * [--keep-logs]}.
 *
 * @param systems the systems, in the order given
 * @param scenarios the failover scenarios, in order
 * @param trials trials per scenario of every system but the slow ones
 * @param slowTrials trials per crash scenario of a slow system (Curator at its defaults)
 * @param idleSeconds how long idle cost is measured (0: not measured)
 * @param leaseMillis the lease duration of every lease system
 * @param failoverTimeoutSeconds the bound on one failover
 * @param jdbcUrl PostgreSQL, for the lease systems
 * @param chart where to write the SVG chart, if anywhere
 * @param keepLogs whether to keep each system's directory (configuration, data, logs)
 */
public record PeerOptions(
        List<String> systems,
        List<Scenario> scenarios,
        int trials,
        int slowTrials,
        int idleSeconds,
        int leaseMillis,
        int failoverTimeoutSeconds,
        String jdbcUrl,
        Optional<Path> chart,
        boolean keepLogs) {

    /** A failover scenario: the signal sent to the leader. */
    public enum Scenario {
        /** kill -9: a crash. */
        KILL("kill", "kill -9"),
        /** SIGSTOP: a silent failure (resumed with SIGCONT after the next leader appears). */
        STOP("stop", "SIGSTOP"),
        /** SIGTERM: a graceful close. */
        TERM("term", "SIGTERM (graceful)");

        private final String option;
        private final String title;

        Scenario(String option, String title) {
            this.option = option;
            this.title = title;
        }

        /** The name {@code --scenarios} takes. */
        public String option() {
            return option;
        }

        /** The name the tables give. */
        public String title() {
            return title;
        }
    }

    /** The usage text. */
    public static final String USAGE = "usage: PeerComparison [--systems a,b,...] [--scenarios kill,stop,term]"
            + " [--trials N] [--slow-trials N] [--idle-seconds S] [--lease-ms MS] [--failover-timeout-s S]"
            + " [--jdbc-url URL] [--chart FILE.svg] [--keep-logs]\n"
            + "  --systems            any of " + String.join(",", PeerSystems.SYSTEMS.keySet()) + " (default all)\n"
            + "  --scenarios          any of kill,stop,term (default all)\n"
            + "  --trials             1 to 1000 (default 20)\n"
            + "  --slow-trials        1 to 1000 (default 20): curator-default's kill and stop trials, ~40 s each\n"
            + "  --idle-seconds       0 to 3600 (default 60; 0 skips the idle measurement)\n"
            + "  --lease-ms           500 to 600000 (default 10000): the lease of every lease system\n"
            + "  --failover-timeout-s 1 to 3600 (default 120): the bound on one failover\n"
            + "  --jdbc-url           PostgreSQL for the lease systems (default " + PeerSystems.DEFAULT_JDBC_URL
            + ")";

    /**
     * Parses the arguments.
     *
     * @throws IllegalArgumentException naming the option and its allowed values
     */
    public static PeerOptions parse(String... args) {
        List<String> systems = new ArrayList<>(PeerSystems.SYSTEMS.keySet());
        List<Scenario> scenarios = List.of(Scenario.values());
        int trials = 20;
        int slowTrials = 20;
        int idleSeconds = 60;
        int leaseMillis = 10_000;
        int timeout = 120;
        String jdbcUrl = PeerSystems.DEFAULT_JDBC_URL;
        Optional<Path> chart = Optional.empty();
        boolean keepLogs = false;
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            if (option.equals("--keep-logs")) {
                keepLogs = true;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(
                        option.startsWith("--") ? option + " needs a value" : "unknown argument '" + option + "'");
            }
            String value = args[++i];
            switch (option) {
                case "--systems" -> systems = systems(value);
                case "--scenarios" -> scenarios = scenarios(value);
                case "--trials" -> trials = number(option, value, 1, 1000);
                case "--slow-trials" -> slowTrials = number(option, value, 1, 1000);
                case "--idle-seconds" -> idleSeconds = number(option, value, 0, 3600);
                case "--lease-ms" -> leaseMillis = number(option, value, 500, 600_000);
                case "--failover-timeout-s" -> timeout = number(option, value, 1, 3600);
                case "--jdbc-url" -> {
                    if (!value.startsWith("jdbc:postgresql:")) {
                        throw new IllegalArgumentException(
                                "--jdbc-url must be a PostgreSQL JDBC URL (jdbc:postgresql:...), was '" + value + "'");
                    }
                    jdbcUrl = value;
                }
                case "--chart" -> {
                    if (!value.endsWith(".svg")) {
                        throw new IllegalArgumentException("--chart must name a .svg file, was '" + value + "'");
                    }
                    chart = Optional.of(Path.of(value));
                }
                default -> throw new IllegalArgumentException("unknown option '" + option + "'\n" + USAGE);
            }
        }
        return new PeerOptions(
                systems, scenarios, trials, slowTrials, idleSeconds, leaseMillis, timeout, jdbcUrl, chart, keepLogs);
    }

    private static List<String> systems(String value) {
        LinkedHashSet<String> chosen = new LinkedHashSet<>();
        for (String s : value.split(",")) {
            String name = s.trim();
            if (!PeerSystems.SYSTEMS.containsKey(name)) {
                throw new IllegalArgumentException("--systems: unknown system '" + name + "'; allowed: "
                        + String.join(", ", PeerSystems.SYSTEMS.keySet()));
            }
            chosen.add(name);
        }
        return List.copyOf(chosen);
    }

    private static List<Scenario> scenarios(String value) {
        LinkedHashSet<Scenario> chosen = new LinkedHashSet<>();
        for (String s : value.split(",")) {
            Scenario found = null;
            for (Scenario sc : Scenario.values()) {
                if (sc.option().equals(s.trim())) {
                    found = sc;
                }
            }
            if (found == null) {
                throw new IllegalArgumentException(
                        "--scenarios: unknown scenario '" + s.trim() + "'; allowed: kill, stop, term");
            }
            chosen.add(found);
        }
        return List.copyOf(chosen);
    }

    private static int number(String option, String value, int min, int max) {
        int n;
        try {
            n = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    option + " must be a whole number " + min + " to " + max + ", was '" + value + "'");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(option + " must be " + min + " to " + max + ", was " + n);
        }
        return n;
    }

    /** The trials of a scenario on a system: the slow system's crash scenarios take {@link #slowTrials}. */
    public int trialsOf(String system, Scenario scenario) {
        return PeerSystems.isSlow(system) && scenario != Scenario.TERM ? slowTrials : trials;
    }
}
