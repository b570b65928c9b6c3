package io.bellwether.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.Role;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Rule 10.6 of {@code docs/quorum.md} in a group: five scripted quorum electors (defaults, standby on, 1 ms links)
 * whose leader's process dies. A ready standby proposes above its pledge as soon as it finds its leader's address
 * refused, without backoff or scouting, and leads one round later while the others stay behind it; when it cannot,
 * the group elects above its pledge. No two members ever hold a valid leadership at once.
 */
class QuorumStandbyFailoverTest {
    private static final QuorumConfig CONFIG = QuorumConfig.defaults();
    private static final long MS = 1_000_000;
    private static final int N = 5;

    /** A settled group, {@code extraMs} after it elected its leader and the leader's standby became ready. */
    private static ScriptedGroup settled(QuorumConfig config, long extraMs) {
        ScriptedGroup g = new ScriptedGroup(config, N, MS, false);
        g.runUntil(1_500 * MS + extraMs * MS);
        assertThat(leaders(g)).as("one leader at start-up").hasSize(1);
        return g;
    }

    /** The live members that lead. */
    private static List<Integer> leaders(ScriptedGroup g) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < N; i++) {
            if (g.alive(i) && g.role(i) == Role.LEADER) {
                out.add(i);
            }
        }
        return out;
    }

    /** Runs in 0.1 ms steps until a member other than {@code old} leads, for at most {@code limitMs}; -1 if none. */
    private static int runUntilNewLeader(ScriptedGroup g, int old, long limitMs) {
        long end = g.now() + limitMs * MS;
        while (g.now() < end) {
            g.runUntil(g.now() + MS / 10);
            for (int i : leaders(g)) {
                if (i != old) {
                    return i;
                }
            }
        }
        return -1;
    }

    private static long maxTerm(ScriptedGroup g, int except) {
        long max = 0;
        for (int i = 0; i < N; i++) {
            if (i != except) {
                max = Math.max(max, g.term(i));
            }
        }
        return max;
    }

    private static String trace(ScriptedGroup g) {
        return String.join("\n", g.trace);
    }

    @Test
    void aReadyStandbyLeadsOneRoundAfterFindingItsDeadLeadersAddressRefused() {
        // Kills at several points of the leader's heartbeat and the standby's round cycles.
        for (long offset = 0; offset < 260; offset += 13) {
            ScriptedGroup g = settled(CONFIG, offset);
            int leader = leaders(g).get(0);
            int standby = g.indexOf(g.successor(leader).orElseThrow());
            long term = g.term(leader);
            long killedAt = g.now();

            g.kill(leader, MS);
            int next = runUntilNewLeader(g, leader, 1_000);

            assertThat(next)
                    .as("offset %d: the standby leads; trace:%n%s", offset, trace(g))
                    .isEqualTo(standby);
            assertThat(g.now() - killedAt)
                    .as("offset %d: one proposal round after it finds the address refused, no backoff", offset)
                    .isLessThanOrEqualTo(3 * MS + MS / 10);
            assertThat(g.term(standby)).as("above its pledge").isEqualTo(term + 2);
            g.runUntil(g.now() + 1_000 * MS);
            assertThat(g.overlapNanos())
                    .as("offset %d; trace:%n%s", offset, trace(g))
                    .isZero();
            assertThat(leaders(g)).containsExactly(standby);
            assertThat(maxTerm(g, leader)).as("nobody campaigned above it").isEqualTo(term + 2);
        }
    }

    @Test
    void followersThatLearnOfTheDeathBeforeTheStandbyStayBehindIt() {
        ScriptedGroup g = settled(CONFIG, 40);
        int leader = leaders(g).get(0);
        int standby = g.indexOf(g.successor(leader).orElseThrow());
        long term = g.term(leader);
        long[] dial = new long[N];
        Arrays.fill(dial, MS);
        dial[standby] = 80 * MS; // long enough for the others to have scouted and been refused
        long killedAt = g.now();

        g.kill(leader, dial);
        int next = runUntilNewLeader(g, leader, 1_000);

        assertThat(g.trace).as("the others scouted meanwhile").anyMatch(line -> line.contains("-> SCOUT"));
        assertThat(next).as("trace:%n%s", trace(g)).isEqualTo(standby);
        assertThat(g.now() - killedAt).isLessThanOrEqualTo(82 * MS + MS / 10);
        assertThat(g.term(standby)).isEqualTo(term + 2);
        g.runUntil(g.now() + 1_000 * MS);
        assertThat(g.overlapNanos()).isZero();
        assertThat(leaders(g)).containsExactly(standby);
        assertThat(maxTerm(g, leader)).isEqualTo(term + 2);
    }

    @Test
    void aLeaderThatDiesAfterRevokingButBeforeItsCessionLeavesIsReplacedByItsStandbyAlike() {
        ScriptedGroup g = settled(CONFIG, 40);
        int leader = leaders(g).get(0);
        int standby = g.indexOf(g.successor(leader).orElseThrow());
        long term = g.term(leader);
        long killedAt = g.now();

        g.run(leader, QuorumElector::stop); // revokes; the cession is on the wire when the process dies
        g.kill(leader, MS);
        int next = runUntilNewLeader(g, leader, 1_000);

        assertThat(next).as("trace:%n%s", trace(g)).isEqualTo(standby);
        assertThat(g.now() - killedAt).isLessThanOrEqualTo(3 * MS + MS / 10);
        assertThat(g.term(standby)).isEqualTo(term + 2);
        g.runUntil(g.now() + 1_000 * MS);
        assertThat(g.overlapNanos()).isZero();
    }

    @Test
    void whenTheStandbyDiesWithItsLeaderTheOthersElectAboveItsPledge() {
        for (long gapMs : new long[] {0, 1, 5, 50}) {
            ScriptedGroup g = settled(CONFIG, 40);
            int leader = leaders(g).get(0);
            int standby = g.indexOf(g.successor(leader).orElseThrow());
            long pledge = g.term(leader) + 1;

            g.kill(standby, MS);
            g.runUntil(g.now() + gapMs * MS);
            g.kill(leader, MS);
            int next = runUntilNewLeader(g, leader, 2_000);

            assertThat(next).as("gap %d ms; trace:%n%s", gapMs, trace(g)).isNotIn(-1, standby);
            assertThat(g.term(next)).as("above the dead standby's pledge").isGreaterThan(pledge);
            g.runUntil(g.now() + 1_000 * MS);
            assertThat(g.overlapNanos())
                    .as("gap %d ms; trace:%n%s", gapMs, trace(g))
                    .isZero();
        }
    }

    @Test
    void aPreparedHandoverWhoseLeaderDiesHalfwayEndsWithOneLeaderAndNoOverlap() {
        // Rule 9 (no standby): the successor gathers its votes; the leader dies before its cession. The successor
        // takes the proven departure as the cession.
        QuorumConfig noStandby = QuorumConfig.builder().standby(false).build();
        for (long killAfterUs = 0; killAfterUs <= 5_000; killAfterUs += 500) {
            ScriptedGroup g = settled(noStandby, 40);
            int leader = leaders(g).get(0);
            g.run(leader, QuorumElector::beginStop);
            g.runUntil(g.now() + killAfterUs * 1_000);
            g.kill(leader, MS);
            int next = runUntilNewLeader(g, leader, 2_000);

            assertThat(next)
                    .as("kill %d us into the handover; trace:%n%s", killAfterUs, trace(g))
                    .isNotEqualTo(-1);
            g.runUntil(g.now() + 1_000 * MS);
            assertThat(g.overlapNanos())
                    .as("kill %d us; trace:%n%s", killAfterUs, trace(g))
                    .isZero();
            assertThat(leaders(g)).hasSize(1);
        }
    }

    @Test
    void aReplacedStandbyThatStillHoldsConfirmationsDoesNotLeadBesideItsSuccessor() {
        // The leader replaces a standby whose connection closed without telling it (the standby learns of the closing
        // only when it next writes to the leader), so for a while two members each hold a majority's confirmations
        // of their own pledge. When the leader then dies, both find its address refused; only one of them may lead.
        int replaced = 0;
        for (long afterMs = 0; afterMs <= 350; afterMs += 10) {
            ScriptedGroup g = settled(CONFIG, 40);
            int leader = leaders(g).get(0);
            int first = g.indexOf(g.successor(leader).orElseThrow());
            g.close(leader, first, 0, ScriptedGroup.AT_NEXT_WRITE);
            g.runUntil(g.now() + afterMs * MS);
            if (g.successor(leader).map(g::indexOf).filter(s -> s != first).isEmpty()) {
                continue; // renamed the same member, or none ready yet
            }
            replaced++;

            g.kill(leader, MS);
            g.runUntil(g.now() + 1_500 * MS);

            assertThat(g.overlapNanos())
                    .as("killed %d ms after; trace:%n%s", afterMs, trace(g))
                    .isZero();
            assertThat(leaders(g)).hasSize(1);
        }
        assertThat(replaced)
                .as("trials in which the leader had named another standby")
                .isPositive();
    }
}
