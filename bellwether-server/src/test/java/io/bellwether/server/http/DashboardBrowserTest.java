package io.bellwether.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.bellwether.server.demo.LocalCluster;
import io.bellwether.server.demo.LocalCluster.Member;
import io.bellwether.server.demo.LocalCluster.NodeStatus;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The dashboard in a real browser: headless Chromium loads it from a node of a real three-process cluster and
 * the test reads the DOM the page's own script rendered. One page stays open across a kill -9 of the leader, so
 * what is checked is the live page changing, not a reload.
 *
 * <p>Skips loudly without {@code /usr/bin/chromium}, but fails on CI, where {@code .ci/run} installs it.
 */
@Tag("browser")
@Tag("processes")
@Timeout(600)
class DashboardBrowserTest {
    /** Generous: a cold JVM per node and a browser on a busy two-core machine. */
    private static final Duration CEILING = Duration.ofSeconds(150);

    /**
     * How long one node's {@code /status} may take to answer. A live node answers in milliseconds, but on a CI
     * machine ten times slower than a workstation, with a browser or other nodes' JVMs starting, a short timeout
     * drops a live node from the reading and the cluster looks as if it never agreed.
     */
    private static final Duration STATUS_TIMEOUT = Duration.ofSeconds(5);

    private static final Duration CLUSTER_POLL = Duration.ofMillis(50);
    private static final Duration PAGE_POLL = Duration.ofMillis(100);

    /**
     * What the page shows, read from its stable {@code data-*} attributes and a few texts. {@code probe} is a
     * marker the test sets on the window to prove later that the page was never reloaded.
     */
    private static final String READ_PAGE =
            """
            (() => {
              const root = document.getElementById("dashboard");
              if (!root) { return null; }
              const all = (selector) => Array.from(document.querySelectorAll(selector));
              return {
                node: root.dataset.node,
                leader: root.dataset.leader,
                epoch: root.dataset.epoch,
                agree: root.dataset.agree,
                successor: document.getElementById("successor").dataset.successor,
                leaderText: document.getElementById("leader").textContent,
                agreement: document.getElementById("agreement").textContent,
                error: document.getElementById("error").textContent,
                probe: window.bellwetherProbe || null,
                rows: all("#members tbody tr").map(tr => ({
                  node: tr.dataset.node,
                  role: tr.dataset.role,
                  epoch: tr.dataset.epoch,
                  leader: tr.dataset.leader,
                  connection: tr.dataset.connection,
                  successor: tr.dataset.successor || "",
                  classes: tr.className
                })),
                timelineLeaders: all("#timeline rect[data-role='LEADER']").map(r => r.dataset.node + "@" + r.dataset.epoch),
                timeline: all("#timeline rect").map(r => ({
                  node: r.dataset.node, role: r.dataset.role, epoch: r.dataset.epoch, since: Number(r.dataset.since)
                })),
                changes: all("#changes li").map(li => ({ kind: li.dataset.kind, seq: li.dataset.seq, text: li.textContent }))
              };
            })()
            """;

    private LocalCluster cluster;
    private HeadlessChromium browser;

    @AfterEach
    void tearDown() {
        if (browser != null) {
            browser.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void livePageShowsTheElectedLeaderAndFollowsAKillNineFailover() throws Exception {
        HeadlessChromium.requireInstalled();
        cluster = LocalCluster.start(3, "quorum", "");
        NodeStatus elected = awaitAgreedLeader(3, 0);
        String observer = cluster.members().stream()
                .map(Member::id)
                .filter(id -> !id.equals(elected.node()))
                .findFirst()
                .orElseThrow();
        browser = HeadlessChromium.launch();
        HeadlessChromium.Page page = browser.open(cluster.member(observer).httpUri("/"));

        Reading before = awaitPageShowsAgreedLeader(page, 3, 0, (view, leader) -> {
            assertThat(view.path("agree").asText()).as("data-agree").isEqualTo("true");
            assertThat(view.path("rows")).as("member rows").hasSize(3);
            assertThat(leader.node())
                    .as("the leader (the page's node must survive)")
                    .isNotEqualTo(observer);
            // The leader's ready standby (quorum rule 10), from its /status, tagged on its row.
            String standby = view.path("successor").asText();
            assertThat(standby).as("data-successor").isNotEmpty().isNotEqualTo(leader.node());
            assertThat(row(view, standby).path("successor").asText()).isEqualTo("true");
        });
        NodeStatus first = before.leader();
        assertThat(before.view().path("node").asText())
                .as("the node serving the page")
                .isEqualTo(observer);
        assertThat(before.view().path("leaderText").asText()).isEqualTo(first.node());
        assertThat(row(before, first.node()).path("classes").asText()).contains("is-leader");
        for (JsonNode r : before.view().path("rows")) {
            assertThat(r.path("leader").asText())
                    .as("leader known by %s", r.path("node"))
                    .isEqualTo(first.node());
        }
        page.evaluate("window.bellwetherProbe = 'not reloaded'");

        cluster.kill(first.node());

        Reading after = awaitPageShowsAgreedLeader(page, 2, first.epoch(), (view, leader) -> {
            assertThat(row(view, first.node()).path("role").asText())
                    .as("role shown for the killed leader")
                    .isEqualTo("UNREACHABLE");
            assertThat(view.path("changes"))
                    .as("leader changes received over server-sent events")
                    .anySatisfy(change -> {
                        assertThat(change.path("kind").asText()).isEqualTo("leader");
                        assertThat(change.path("text").asText()).endsWith("leader " + leader.node());
                    });
            // The page fetches every member's status on its own schedule: wait until the survivor that learns
            // of the new leader last has been read too, so the page no longer reports a disagreement.
            assertThat(view.path("agreement").asText()).contains("unreachable: " + first.node());
        });
        NodeStatus second = after.leader();
        assertThat(after.view().path("probe").asText())
                .as("the same page, updated in place")
                .isEqualTo("not reloaded");
        assertThat(second.node()).isNotEqualTo(first.node());
        assertThat(after.view().path("leaderText").asText()).isEqualTo(second.node());
        assertThat(row(after, first.node()).path("classes").asText()).contains("is-unreachable");
        assertThat(row(after, first.node()).path("connection").asText())
                .as("the observer's connection to the killed leader")
                .isNotEqualTo("CONNECTED");
        assertThat(after.view().path("agree").asText())
                .as("not every member answers")
                .isEqualTo("false");
        assertThat(after.view().path("agreement").asText()).contains("unreachable: " + first.node());
        assertThat(after.view().path("timelineLeaders"))
                .extracting(JsonNode::asText)
                .as("leadership timeline")
                .contains(first.node() + "@" + first.epoch(), second.node() + "@" + second.epoch());
    }

    @Test
    void aPageOpenedAfterTheElectionDrawsEachMembersTimelineFromItsHistory() throws Exception {
        HeadlessChromium.requireInstalled();
        cluster = LocalCluster.start(3, "quorum", "");
        NodeStatus elected = awaitAgreedLeader(3, 0);
        String observer = cluster.members().stream()
                .map(Member::id)
                .filter(id -> !id.equals(elected.node()))
                .findFirst()
                .orElseThrow();
        browser = HeadlessChromium.launch();
        // The browser and the nodes share this machine's clock: what the page drew from before this moment, it
        // can only have read from the nodes' histories.
        long opened = System.currentTimeMillis();
        HeadlessChromium.Page page = browser.open(cluster.member(observer).httpUri("/"));

        awaitPageShowsAgreedLeader(page, 3, 0, (view, leader) -> {
            assertThat(view.path("timeline"))
                    .as("the leader's lane, from its history")
                    .anySatisfy(rect -> {
                        assertThat(rect.path("node").asText()).isEqualTo(leader.node());
                        assertThat(rect.path("role").asText()).isEqualTo("LEADER");
                        assertThat(rect.path("epoch").asText()).isEqualTo(Long.toString(leader.epoch()));
                        assertThat(rect.path("since").asLong()).isLessThan(opened);
                    });
            for (Member member : cluster.members()) {
                assertThat(view.path("timeline"))
                        .as("%s's lane starts before the page was opened", member.id())
                        .anySatisfy(rect -> {
                            assertThat(rect.path("node").asText()).isEqualTo(member.id());
                            assertThat(rect.path("since").asLong()).isLessThan(opened);
                        });
            }
            assertThat(view.path("changes"))
                    .as("the observer's changes from before the page was opened")
                    .anySatisfy(change -> {
                        assertThat(change.path("kind").asText()).isEqualTo("leader");
                        assertThat(change.path("text").asText()).endsWith("leader " + leader.node());
                    });
            assertThat(view.path("changes"))
                    .extracting(change -> change.path("seq").asText())
                    .as("each change (by its number) listed once")
                    .doesNotHaveDuplicates();
        });
    }

    /** What the page showed, and the leader the cluster agreed on when it showed it. */
    private record Reading(JsonNode view, NodeStatus leader) {}

    /** Further checks of one reading of the page, failing with AssertJ's message. */
    private interface PageCheck {
        void check(JsonNode view, NodeStatus leader);
    }

    /** Waits until every live node names the same leader above {@code aboveEpoch}, with {@code expected} answering. */
    private NodeStatus awaitAgreedLeader(int expected, long aboveEpoch) {
        AtomicReference<NodeStatus> agreed = new AtomicReference<>();
        await().atMost(CEILING).pollInterval(CLUSTER_POLL).until(() -> {
            Optional<NodeStatus> leader = agreedLeader(expected, aboveEpoch);
            leader.ifPresent(agreed::set);
            return leader.isPresent();
        });
        return agreed.get();
    }

    private Optional<NodeStatus> agreedLeader(int expected, long aboveEpoch) {
        Map<String, NodeStatus> statuses = cluster.liveStatuses(STATUS_TIMEOUT);
        return LocalCluster.agreedLeader(statuses)
                .filter(leader -> statuses.size() == expected && leader.epoch() > aboveEpoch);
    }

    /**
     * Reads the cluster's agreement and then the page until the page shows that leader at its epoch, with its
     * row marked LEADER, and {@code check} passes. Comparing with the agreement of the moment (not one taken
     * earlier) keeps the test correct should a busy machine cause another election meanwhile. On timeout the
     * last failed assertion, the last reading and the browser's output explain what the page showed instead.
     */
    private Reading awaitPageShowsAgreedLeader(
            HeadlessChromium.Page page, int expected, long aboveEpoch, PageCheck check) {
        AtomicReference<Reading> last = new AtomicReference<>();
        try {
            await().atMost(CEILING).pollInterval(PAGE_POLL).untilAsserted(() -> {
                NodeStatus leader = agreedLeader(expected, aboveEpoch)
                        .orElseThrow(() -> new AssertionError(
                                expected + " nodes do not agree on a leader above epoch " + aboveEpoch));
                JsonNode view;
                try {
                    view = page.evaluate(READ_PAGE);
                } catch (IOException e) {
                    // While the first document loads there may be no context to evaluate in yet.
                    throw new AssertionError("could not read the page", e);
                }
                Reading reading = new Reading(view, leader);
                last.set(reading);
                assertThat(view.isObject()).as("the page has rendered its root").isTrue();
                String epoch = Long.toString(leader.epoch());
                assertThat(view.path("leader").asText()).as("data-leader").isEqualTo(leader.node());
                assertThat(view.path("epoch").asText()).as("data-epoch").isEqualTo(epoch);
                assertThat(row(reading, leader.node()).path("role").asText())
                        .as("role shown for the leader")
                        .isEqualTo("LEADER");
                assertThat(row(reading, leader.node()).path("epoch").asText())
                        .as("epoch shown for the leader")
                        .isEqualTo(epoch);
                check.check(view, leader);
            });
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError(
                    "the dashboard never showed what was expected; last reading: " + last.get() + "\nChromium output:\n"
                            + browser.output(),
                    e);
        }
        return last.get();
    }

    private static JsonNode row(Reading reading, String node) {
        return row(reading.view(), node);
    }

    private static JsonNode row(JsonNode view, String node) {
        return StreamSupport.stream(view.path("rows").spliterator(), false)
                .filter(r -> r.path("node").asText().equals(node))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no row for " + node + " in " + view.path("rows")));
    }
}
