package io.bellwether.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bellwether.server.demo.LocalCluster;
import io.bellwether.server.demo.LocalCluster.Member;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The dashboard of a node that hosts many election groups, in a real browser: three node processes of twenty
 * groups each, headless Chromium on one of them. The page must show the summary (how many groups, what each member
 * leads, none leaderless), list the groups, and open one group's own view, by a click and by its address.
 *
 * <p>Skips loudly without {@code /usr/bin/chromium}, but fails on CI, where {@code .ci/run} installs it.
 */
@Tag("browser")
@Tag("processes")
@Timeout(300)
class DashboardGroupsBrowserTest {
    private static final int GROUPS = 20;
    private static final int NODES = 3;

    /** Generous: a cold JVM per node and a browser on a busy two-core machine. */
    private static final Duration CEILING = Duration.ofSeconds(90);

    /** How long one node's {@code /status} may take to answer on a loaded machine (see DashboardBrowserTest). */
    private static final Duration STATUS_TIMEOUT = Duration.ofSeconds(5);

    private static final Duration CLUSTER_POLL = Duration.ofMillis(100);
    private static final Duration PAGE_POLL = Duration.ofMillis(100);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What the page shows, read from its stable {@code data-*} attributes and a few texts. */
    private static final String READ_PAGE =
            """
            (() => {
              const root = document.getElementById("dashboard");
              if (!root) { return null; }
              const all = (selector) => Array.from(document.querySelectorAll(selector));
              const table = document.getElementById("groups");
              const shown = document.getElementById("groups-shown");
              const back = document.getElementById("back-bar");
              return {
                view: root.dataset.view || "",
                node: root.dataset.node,
                group: root.dataset.group || "",
                groups: root.dataset.groups || "",
                leaderless: root.dataset.leaderless || "",
                agree: root.dataset.agree,
                leader: root.dataset.leader,
                epoch: root.dataset.epoch,
                probe: window.bellwetherProbe || null,
                backShown: !!back && !back.hidden,
                total: table ? table.dataset.total : "",
                matching: table ? table.dataset.matching : "",
                shownCount: table ? table.dataset.shown : "",
                note: shown ? shown.textContent : "",
                members: all("#group-members tbody tr").map(tr => ({
                  node: tr.dataset.node, role: tr.dataset.role, leading: tr.dataset.leading,
                  leads: tr.dataset.leads, leaderless: tr.dataset.leaderless
                })),
                groupRows: all("#groups tbody tr").map(tr => ({
                  group: tr.dataset.group, leader: tr.dataset.leader, role: tr.dataset.role
                })),
                rows: all("#members tbody tr").map(tr => ({
                  node: tr.dataset.node, role: tr.dataset.role, epoch: tr.dataset.epoch, leader: tr.dataset.leader
                })),
                changes: all("#changes li").map(li => li.textContent),
                errors: (document.getElementById("error") || {}).textContent + " "
                  + (document.getElementById("groups-error") || {}).textContent
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
    void summaryListsEveryGroupAndOpensOneByClickAndByAddress() throws Exception {
        HeadlessChromium.requireInstalled();
        cluster = LocalCluster.start(NODES, "quorum", "groups: " + GROUPS + "\n");
        awaitEveryGroupLed();
        String observer = cluster.members().get(0).id();
        browser = HeadlessChromium.launch();
        HeadlessChromium.Page page = browser.open(cluster.member(observer).httpUri("/"));

        awaitPage(page, "the summary of every group", view -> {
            Map<String, JsonNode> summaries =
                    everyGroupLed().orElseThrow(() -> new AssertionError("not every group has one agreed leader"));
            JsonNode own = summaries.get(observer);
            assertThat(view.path("view").asText()).as("data-view").isEqualTo("summary");
            assertThat(view.path("node").asText()).as("data-node").isEqualTo(observer);
            assertThat(view.path("groups").asText()).as("data-groups").isEqualTo(Integer.toString(GROUPS));
            assertThat(view.path("leaderless").asText()).as("data-leaderless").isEqualTo("0");
            assertThat(view.path("agree").asText()).as("data-agree").isEqualTo("true");
            assertThat(view.path("members")).as("member rows").hasSize(NODES);
            int sum = 0;
            for (Member member : cluster.members()) {
                JsonNode row = row(view.path("members"), "node", member.id());
                long leads = own.path("leaders").path(member.id()).asLong();
                assertThat(row.path("leads").asText())
                        .as("groups %s leads, as the observer's /status says", member.id())
                        .isEqualTo(Long.toString(leads));
                assertThat(row.path("leading").asText())
                        .as("groups %s leads, as its own /status says", member.id())
                        .isEqualTo(summaries
                                .get(member.id())
                                .path("groups")
                                .path("leading")
                                .asText());
                sum += Integer.parseInt(row.path("leads").asText());
            }
            assertThat(sum).as("groups led, summed over the members").isEqualTo(GROUPS);

            JsonNode listed = groups(observer);
            assertThat(view.path("groupRows")).as("group rows").hasSize(GROUPS);
            assertThat(view.path("total").asText()).isEqualTo(Integer.toString(GROUPS));
            assertThat(view.path("note").asText()).contains("showing " + GROUPS + " of " + GROUPS);
            List<String> names = new ArrayList<>();
            for (JsonNode r : view.path("groupRows")) {
                names.add(r.path("group").asText());
                assertThat(r.path("leader").asText())
                        .as("leader of %s", r.path("group").asText())
                        .isEqualTo(row(
                                        listed.path("groups"),
                                        "group",
                                        r.path("group").asText())
                                .path("leader")
                                .asText());
            }
            assertThat(names)
                    .containsExactlyInAnyOrderElementsOf(IntStream.range(0, GROUPS)
                            .mapToObj(i -> "group-" + i)
                            .toList());
        });
        page.evaluate("window.bellwetherProbe = 'not reloaded'");

        // The filter narrows the list to the groups whose name (or leader) contains the text.
        page.evaluate(
                """
                (() => {
                  const box = document.getElementById("groups-filter");
                  box.value = "group-1";
                  box.dispatchEvent(new Event("input"));
                })()
                """);
        awaitPage(page, "the filtered list", view -> {
            // group-1 and group-10 … group-19
            assertThat(view.path("groupRows")).as("filtered rows").hasSize(11);
            assertThat(view.path("groupRows"))
                    .allSatisfy(r -> assertThat(r.path("group").asText()).startsWith("group-1"));
            assertThat(view.path("note").asText()).contains("showing 11 of 11 matching");
        });

        page.evaluate("document.querySelector('#groups tr[data-group=\"group-17\"]').click()");
        awaitGroupView(page, observer, "group-17");

        page.evaluate("document.getElementById('back').click()");
        awaitPage(page, "the summary again", view -> {
            assertThat(view.path("view").asText()).isEqualTo("summary");
            assertThat(view.path("groups").asText()).isEqualTo(Integer.toString(GROUPS));
            assertThat(view.path("groupRows")).isNotEmpty();
            assertThat(view.path("probe").asText())
                    .as("the same page, updated in place")
                    .isEqualTo("not reloaded");
        });

        HeadlessChromium.Page direct = browser.open(cluster.member(observer).httpUri("/?group=group-3"));
        awaitGroupView(direct, observer, "group-3");
    }

    /** Waits until the page shows the group's own view: the leader every member agrees on for that group. */
    private void awaitGroupView(HeadlessChromium.Page page, String observer, String group) {
        awaitPage(page, "the view of " + group, view -> {
            GroupLeader leader = agreedLeader(group)
                    .orElseThrow(() -> new AssertionError("the members do not agree on a leader of " + group));
            assertThat(view.path("view").asText()).as("data-view").isEqualTo("group");
            assertThat(view.path("group").asText()).as("data-group").isEqualTo(group);
            assertThat(view.path("node").asText()).as("data-node").isEqualTo(observer);
            assertThat(view.path("backShown").asBoolean())
                    .as("a way back to the summary")
                    .isTrue();
            assertThat(view.path("leader").asText()).as("data-leader").isEqualTo(leader.node());
            assertThat(view.path("epoch").asText()).as("data-epoch").isEqualTo(Long.toString(leader.epoch()));
            assertThat(view.path("agree").asText()).as("data-agree").isEqualTo("true");
            assertThat(view.path("rows")).as("member rows").hasSize(NODES);
            assertThat(row(view.path("rows"), "node", leader.node())
                            .path("role")
                            .asText())
                    .as("role shown for the leader of " + group)
                    .isEqualTo("LEADER");
            assertThat(view.path("changes"))
                    .as("the observer's changes of " + group)
                    .anySatisfy(change -> assertThat(change.asText()).endsWith("leader " + leader.node()));
        });
    }

    /** One group's leader as every member names it. */
    private record GroupLeader(String node, long epoch) {}

    /**
     * The leader of {@code group} when every member's {@code /status?group=} names it at the same epoch and it
     * reports LEADER there.
     */
    private Optional<GroupLeader> agreedLeader(String group) {
        Map<String, JsonNode> statuses = new LinkedHashMap<>();
        for (Member member : cluster.members()) {
            Optional<JsonNode> status = read(member.id(), "/status?group=" + group);
            if (status.isEmpty()) {
                return Optional.empty();
            }
            statuses.put(member.id(), status.get());
        }
        JsonNode first = statuses.values().iterator().next();
        String leader = first.path("leader").asText(null);
        long epoch = first.path("epoch").asLong();
        if (leader == null) {
            return Optional.empty();
        }
        for (JsonNode s : statuses.values()) {
            if (!group.equals(s.path("group").asText())
                    || !leader.equals(s.path("leader").asText(null))
                    || s.path("epoch").asLong() != epoch) {
                return Optional.empty();
            }
        }
        JsonNode own = statuses.get(leader);
        return own != null && "LEADER".equals(own.path("role").asText())
                ? Optional.of(new GroupLeader(leader, epoch))
                : Optional.empty();
    }

    private void awaitEveryGroupLed() {
        await().atMost(CEILING).pollInterval(CLUSTER_POLL).until(() -> everyGroupLed()
                .isPresent());
    }

    /**
     * Every member's {@code /status} summary, when every member answers, none knows a leaderless group, they all
     * count the same leaders, and each leads as many groups as they all see it lead.
     */
    private Optional<Map<String, JsonNode>> everyGroupLed() {
        Map<String, JsonNode> summaries = new LinkedHashMap<>();
        for (Member member : cluster.members()) {
            Optional<JsonNode> status = read(member.id(), "/status");
            if (status.isEmpty()) {
                return Optional.empty();
            }
            summaries.put(member.id(), status.get());
        }
        JsonNode leaders = summaries.values().iterator().next().path("leaders");
        long sum = 0;
        for (Member member : cluster.members()) {
            sum += leaders.path(member.id()).asLong();
        }
        if (sum != GROUPS) {
            return Optional.empty();
        }
        for (Map.Entry<String, JsonNode> e : summaries.entrySet()) {
            JsonNode groups = e.getValue().path("groups");
            if (groups.path("count").asInt() != GROUPS
                    || groups.path("leaderless").asLong(-1) != 0
                    || !e.getValue().path("leaders").equals(leaders)
                    || groups.path("leading").asLong()
                            != leaders.path(e.getKey()).asLong()) {
                return Optional.empty();
            }
        }
        return Optional.of(summaries);
    }

    private JsonNode groups(String member) {
        return read(member, "/groups").orElseThrow(() -> new AssertionError(member + " does not answer /groups"));
    }

    private Optional<JsonNode> read(String member, String path) {
        Optional<String> body = cluster.get(member, path, STATUS_TIMEOUT);
        if (body.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(JSON.readTree(body.get()));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Further checks of one reading of the page, failing with AssertJ's message. */
    private interface PageCheck {
        void check(JsonNode view);
    }

    /**
     * Reads the page until {@code check} passes. On timeout the last failed assertion, the last reading and the
     * browser's output explain what the page showed instead.
     */
    private void awaitPage(HeadlessChromium.Page page, String what, PageCheck check) {
        AtomicReference<JsonNode> last = new AtomicReference<>();
        try {
            await().atMost(CEILING).pollInterval(PAGE_POLL).untilAsserted(() -> {
                JsonNode view;
                try {
                    view = page.evaluate(READ_PAGE);
                } catch (IOException e) {
                    // While the first document loads there may be no context to evaluate in yet.
                    throw new AssertionError("could not read the page", e);
                }
                last.set(view);
                assertThat(view.isObject()).as("the page has rendered its root").isTrue();
                check.check(view);
            });
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError(
                    "the dashboard never showed " + what + "; last reading: " + last.get() + "\nChromium output:\n"
                            + browser.output(),
                    e);
        }
    }

    private static JsonNode row(JsonNode rows, String key, String value) {
        return StreamSupport.stream(rows.spliterator(), false)
                .filter(r -> r.path(key).asText().equals(value))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no row with " + key + " " + value + " in " + rows));
    }
}
