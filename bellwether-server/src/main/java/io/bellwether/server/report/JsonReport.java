package io.bellwether.server.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.bellwether.sim.ExhaustiveExplorer;
import io.bellwether.sim.FaultKind;
import io.bellwether.sim.HistoryEntry;
import io.bellwether.sim.Violation;
import java.util.List;
import java.util.Map;

/**
 * Renders a {@link SimulationSummary} as one JSON object, for scripts and CI. Times are virtual milliseconds
 * with microsecond precision; a percentile of an empty sample is {@code null}.
 */
public final class JsonReport {
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private JsonReport() {}

    /** The report as a JSON tree. */
    public static ObjectNode toJson(SimulationSummary summary) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("algorithm", summary.algorithm());
        root.put("nodes", summary.nodes());
        root.put("seeds", summary.seeds());
        root.put("seedStart", summary.seedStart());
        root.put("faults", summary.faultsText());
        root.put("runs", summary.runs());
        root.put("ok", summary.totalViolations() == 0);
        root.set("violations", violations(summary.violations()));
        root.put("violatingRuns", summary.violatingRuns());
        root.put("elections", summary.elections());
        root.put("electionMessages", summary.electionMessages());
        root.put("totalMessages", summary.totalMessages());
        root.put("events", summary.events());
        root.set("failoverMs", percentiles(summary.failover()));
        ObjectNode byFault = root.putObject("failoverMsByFault");
        for (Map.Entry<FaultKind, Distribution> e : summary.failoverByFault().entrySet()) {
            byFault.set(e.getKey().cliName(), percentiles(e.getValue()));
        }
        if (summary.messagesPerElection().isPresent()) {
            root.put("messagesPerElection", round3(summary.messagesPerElection().getAsDouble()));
        } else {
            root.putNull("messagesPerElection");
        }
        ObjectNode convergence = root.putObject("convergenceMs");
        Distribution c = summary.convergence();
        putMillis(convergence, "p50", c.isEmpty() ? null : c.percentileNanos(50));
        putMillis(convergence, "max", c.isEmpty() ? null : c.maxNanos());
        convergence.put("count", c.count());
        ObjectNode split = root.putObject("twoLeaders");
        putMillis(split, "totalMs", summary.twoLeaderNanos());
        split.put("periods", summary.twoLeaderEpisodes());
        convergence.put("notConverged", summary.notConverged());
        summary.exhaustive().ifPresent(result -> root.set("exhaustive", exhaustive(result)));
        return root;
    }

    /** The report as pretty-printed JSON text. */
    public static String render(SimulationSummary summary) {
        try {
            return MAPPER.writeValueAsString(toJson(summary));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            // A tree of plain values always serialises; anything else is a bug here.
            throw new IllegalStateException("cannot render the report as JSON", e);
        }
    }

    private static ObjectNode exhaustive(ExhaustiveExplorer.Result result) {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("nodes", result.nodes());
        node.put("depth", result.depth());
        node.put("paths", result.paths());
        node.put("distinctStates", result.distinctStates());
        node.set("violations", violations(result.violations()));
        return node;
    }

    private static ArrayNode violations(List<Violation> violations) {
        ArrayNode array = MAPPER.createArrayNode();
        for (Violation v : violations) {
            ObjectNode node = array.addObject();
            node.put("seed", v.seed());
            node.put("invariant", v.invariant());
            node.put("message", v.message());
            node.put("replay", v.replayCommand());
            ArrayNode excerpt = node.putArray("excerpt");
            for (HistoryEntry entry : v.excerpt()) {
                ObjectNode e = excerpt.addObject();
                e.put("timeMs", round3(Distribution.millis(entry.timeNanos())));
                e.put("node", entry.node());
                e.put("event", entry.event());
                e.put("epoch", entry.epoch());
                e.put("detail", entry.detail());
            }
        }
        return array;
    }

    private static ObjectNode percentiles(Distribution d) {
        ObjectNode node = MAPPER.createObjectNode();
        putMillis(node, "p50", d.isEmpty() ? null : d.percentileNanos(50));
        putMillis(node, "p99", d.isEmpty() ? null : d.percentileNanos(99));
        putMillis(node, "max", d.isEmpty() ? null : d.maxNanos());
        node.put("count", d.count());
        return node;
    }

    private static void putMillis(ObjectNode node, String field, Long nanos) {
        if (nanos == null) {
            node.putNull(field);
        } else {
            node.put(field, round3(Distribution.millis(nanos)));
        }
    }

    private static double round3(double value) {
        return Math.round(value * 1000.0) / 1000.0;
    }
}
