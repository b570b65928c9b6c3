package io.bellwether.bench.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.bellwether.bench.peers.PeerOptions.Scenario;
import java.util.List;
import org.junit.jupiter.api.Test;

class PeerOptionsTest {
    @Test
    void defaultsAreEverySystemAndScenarioTwentyTrials() {
        PeerOptions o = PeerOptions.parse();
        assertEquals(List.copyOf(PeerSystems.SYSTEMS.keySet()), o.systems());
        assertEquals(List.of(Scenario.values()), o.scenarios());
        assertEquals(20, o.trials());
        assertEquals(20, o.slowTrials());
        assertEquals(60, o.idleSeconds());
        assertEquals(10_000, o.leaseMillis());
    }

    @Test
    void slowTrialsApplyToCuratorDefaultsCrashScenariosOnly() {
        PeerOptions o = PeerOptions.parse("--trials", "7", "--slow-trials", "2");
        assertEquals(2, o.trialsOf("curator-default", Scenario.KILL));
        assertEquals(2, o.trialsOf("curator-default", Scenario.STOP));
        assertEquals(7, o.trialsOf("curator-default", Scenario.TERM));
        assertEquals(7, o.trialsOf("curator-tuned", Scenario.KILL));
    }

    @Test
    void badValuesNameTheOptionAndTheAllowedRange() {
        assertMessage("--trials must be 1 to 1000, was 0", "--trials", "0");
        assertMessage("--trials must be a whole number 1 to 1000, was 'x'", "--trials", "x");
        assertMessage("--lease-ms must be 500 to 600000, was 5", "--lease-ms", "5");
        assertMessage("--idle-seconds must be 0 to 3600, was -1", "--idle-seconds", "-1");
        assertMessage("--systems: unknown system 'zab'", "--systems", "ratis,zab");
        assertMessage("--scenarios: unknown scenario 'pause'", "--scenarios", "pause");
        assertMessage("--chart must name a .svg file", "--chart", "out.png");
        assertMessage("--trials needs a value", "--trials");
        assertMessage("unknown option '--nodes'", "--nodes", "3");
    }

    private static void assertMessage(String expected, String... args) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PeerOptions.parse(args));
        assertTrue(e.getMessage().startsWith(expected), e.getMessage());
    }
}
