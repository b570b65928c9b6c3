package io.bellwether.server.report;

import static io.bellwether.server.report.Runs.MS;
import static io.bellwether.server.report.Runs.failover;
import static io.bellwether.server.report.Runs.ok;
import static io.bellwether.server.report.Runs.violating;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bellwether.sim.ExhaustiveExplorer;
import io.bellwether.sim.FaultKind;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonReportTest {
    private final ObjectMapper mapper = new ObjectMapper();

    @Test
    void reportCarriesTheRunParametersAndFigures() throws Exception {
        SimulationSummary s = SimulationSummary.of(
                "quorum",
                5,
                EnumSet.of(FaultKind.CRASH, FaultKind.PARTITION),
                7,
                2,
                List.of(
                        ok(7, 2, 20, 150 * MS, failover(FaultKind.CRASH, 45, 9)),
                        ok(8, 2, 24, 250 * MS, failover(FaultKind.CRASH, 55, 11))));

        JsonNode json = mapper.readTree(JsonReport.render(s));

        assertThat(json.get("algorithm").asText()).isEqualTo("quorum");
        assertThat(json.get("nodes").asInt()).isEqualTo(5);
        assertThat(json.get("seeds").asInt()).isEqualTo(2);
        assertThat(json.get("seedStart").asLong()).isEqualTo(7);
        assertThat(json.get("faults").asText()).isEqualTo("crash,partition");
        assertThat(json.get("violations").isArray()).isTrue();
        assertThat(json.get("violations")).isEmpty();
        assertThat(json.get("elections").asLong()).isEqualTo(4);
        assertThat(json.get("messagesPerElection").asDouble()).isEqualTo(11.0);
        assertThat(json.at("/failoverMs/p50").asDouble()).isEqualTo(45.0);
        assertThat(json.at("/failoverMs/p99").asDouble()).isEqualTo(55.0);
        assertThat(json.at("/failoverMs/max").asDouble()).isEqualTo(55.0);
        assertThat(json.at("/failoverMs/count").asInt()).isEqualTo(2);
        assertThat(json.at("/failoverMsByFault/crash/count").asInt()).isEqualTo(2);
        assertThat(json.at("/convergenceMs/p50").asDouble()).isEqualTo(150.0);
        assertThat(json.at("/convergenceMs/max").asDouble()).isEqualTo(250.0);
        assertThat(json.has("exhaustive")).isFalse();
    }

    @Test
    void eachViolationCarriesSeedInvariantMessageAndReplayCommand() throws Exception {
        SimulationSummary s = SimulationSummary.of(
                "quorum",
                5,
                FaultKind.all(),
                1,
                3,
                List.of(violating(3, "one-leader-per-term", "n1 and n2 lead term 2")));

        JsonNode v = mapper.readTree(JsonReport.render(s)).get("violations").get(0);

        assertThat(v.get("seed").asLong()).isEqualTo(3);
        assertThat(v.get("invariant").asText()).isEqualTo("one-leader-per-term");
        assertThat(v.get("message").asText()).isEqualTo("n1 and n2 lead term 2");
        assertThat(v.get("replay").asText()).contains("--seed-start 3");
        assertThat(v.get("excerpt")).hasSize(2);
        assertThat(v.at("/excerpt/0/node").asText()).isEqualTo("n1");
    }

    @Test
    void emptySamplesAreNullsNotZeros() throws Exception {
        SimulationSummary s =
                SimulationSummary.of("quorum", 1, FaultKind.parseList("none"), 1, 1, List.of(ok(1, 0, 0, -1)));

        JsonNode json = mapper.readTree(JsonReport.render(s));

        assertThat(json.get("faults").asText()).isEqualTo("none");
        assertThat(json.at("/failoverMs/p50").isNull()).isTrue();
        assertThat(json.at("/failoverMs/count").asInt()).isZero();
        assertThat(json.get("failoverMsByFault").isObject()).isTrue();
        assertThat(json.get("messagesPerElection").isNull()).isTrue();
        assertThat(json.at("/convergenceMs/p50").isNull()).isTrue();
    }

    @Test
    void exhaustiveResultIsIncludedWhenItRan() throws Exception {
        SimulationSummary s = SimulationSummary.of("quorum", 5, FaultKind.all(), 1, 1, List.of(ok(1, 1, 5, 0)))
                .withExhaustive(new ExhaustiveExplorer.Result(3, 9, 5000, 700, List.of()));

        JsonNode e = mapper.readTree(JsonReport.render(s)).get("exhaustive");

        assertThat(e.get("nodes").asInt()).isEqualTo(3);
        assertThat(e.get("depth").asInt()).isEqualTo(9);
        assertThat(e.get("paths").asLong()).isEqualTo(5000);
        assertThat(e.get("distinctStates").asLong()).isEqualTo(700);
        assertThat(e.get("violations")).isEmpty();
    }
}
