package io.bellwether.bench.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.bench.chaos.ChaosRecord.Attempt;
import io.bellwether.bench.chaos.ChaosRecord.Fault;
import io.bellwether.bench.chaos.ChaosRecord.Observation;
import io.bellwether.bench.chaos.ChaosRecord.Recovery;
import io.bellwether.bench.chaos.ChaosRecord.Verdict;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class ChaosReportTest {
    private static final long S = 1_000_000_000L;
    private static final long MS = 1_000_000L;
    private static final long T0 = 1_795_000_000L * S;
    /** The group of the timeline that holds the write attempts (the legend repeats their classes). */
    private static final String ATTEMPTS = "//*[local-name()='g'][@class='attempts']";

    // ---- small hand-made records ----

    /** Three nodes, 20 s: n1 leads epoch 1, is paused 5–8 s, n2 takes over with epoch 2, n1 writes once stale. */
    private static ChaosRecord small(List<String> violations, String description) {
        List<String> nodes = List.of("n1", "n2", "n3");
        List<Observation> obs = new ArrayList<>();
        for (long t = 0; t <= 20 * S; t += 250 * MS) {
            boolean paused = t >= 5 * S && t < 8 * S;
            boolean newEpoch = t >= 6 * S;
            for (String n : nodes) {
                if (n.equals("n1") && paused) {
                    obs.add(new Observation(n, T0 + t, "PAUSED", null, 0));
                } else if (newEpoch) {
                    obs.add(new Observation(n, T0 + t, n.equals("n2") ? "LEADER" : "FOLLOWER", "n2", 2));
                } else if (t >= 5 * S) {
                    obs.add(new Observation(n, T0 + t, "CANDIDATE", null, 1));
                } else {
                    obs.add(new Observation(n, T0 + t, n.equals("n1") ? "LEADER" : "FOLLOWER", "n1", 1));
                }
            }
        }
        List<Attempt> attempts = new ArrayList<>();
        long counter = 0;
        for (long t = 500 * MS; t < 5 * S; t += 500 * MS) {
            attempts.add(new Attempt(1, "n1", counter++, T0 + t, T0 + t + 5 * MS, "accepted"));
        }
        attempts.add(new Attempt(1, "n1", counter++, T0 + 8 * S + 10 * MS, T0 + 8 * S + 20 * MS, "stale"));
        for (long t = 6500 * MS; t < 20 * S; t += 500 * MS) {
            attempts.add(new Attempt(
                    2, "n2", counter++, T0 + t, t >= 19 * S ? 0 : T0 + t + 5 * MS, t >= 19 * S ? "" : "accepted"));
        }
        List<Fault> faults = List.of(
                new Fault("pause", description, List.of("n1"), T0 + 5 * S, T0 + 8 * S),
                new Fault("delay", "delay 200 ms on every link", List.of(), T0 + 12 * S, T0 + 14 * S));
        Verdict verdict = new Verdict(
                violations,
                List.of(new Recovery(0, T0 + 8 * S + 300 * MS, 5 * S), new Recovery(1, 0, 5 * S)),
                1,
                attempts.stream().filter(a -> a.outcome().equals("accepted")).count(),
                1);
        return new ChaosRecord(
                "lease",
                "postgres",
                "task",
                42,
                "bellwether-chaos --algorithm lease --seed 42",
                nodes,
                T0,
                T0 + 20 * S,
                faults,
                obs,
                attempts,
                verdict);
    }

    private static ChaosRecord clean() {
        return small(List.of(), "pause n1 (the leader) for 3 s");
    }

    @Test
    void pageIsWellFormedXmlWithOneLanePerNode() throws Exception {
        Document doc = parse(ChaosReport.html(clean()));
        NodeList lanes = xpath(doc, "//*[local-name()='g'][@class='lane']");
        assertThat(lanes.getLength()).isEqualTo(3);
        List<String> laneNodes = new ArrayList<>();
        for (int i = 0; i < lanes.getLength(); i++) {
            laneNodes.add(((Element) lanes.item(i)).getAttribute("data-node"));
        }
        assertThat(laneNodes).containsExactly("n1", "n2", "n3");
    }

    @Test
    void svgFragmentParsesOnItsOwn() throws Exception {
        String html = ChaosReport.html(clean());
        String svg = html.substring(html.indexOf("<svg"), html.indexOf("</svg>") + "</svg>".length());
        Document doc = parse(svg);
        assertThat(doc.getDocumentElement().getLocalName()).isEqualTo("svg");
        assertThat(doc.getDocumentElement().getAttribute("width")).isEqualTo(Integer.toString(ChaosReport.WIDTH));
    }

    @Test
    void cleanRunShowsNoViolationInGreen() throws Exception {
        Document doc = parse(ChaosReport.html(clean()));
        NodeList verdict = xpath(doc, "//*[local-name()='div'][contains(@class,'verdict')]");
        assertThat(verdict.getLength()).isEqualTo(1);
        assertThat(((Element) verdict.item(0)).getAttribute("class")).isEqualTo("verdict ok");
        assertThat(verdict.item(0).getTextContent()).isEqualTo("no violation");
    }

    @Test
    void violationsShowTheirCountInRedAndEveryText() throws Exception {
        ChaosRecord r = small(
                List.of("two leaders at once: n1 (epoch 1) and n2 (epoch 2) at 8.010 s", "epoch 2 was reused"),
                "pause n1");
        Document doc = parse(ChaosReport.html(r));
        Element verdict = (Element) xpath(doc, "//*[local-name()='div'][contains(@class,'verdict')]")
                .item(0);
        assertThat(verdict.getAttribute("class")).isEqualTo("verdict bad");
        assertThat(verdict.getTextContent()).isEqualTo("2 violations");
        NodeList items = xpath(doc, "//*[local-name()='ul'][@class='violations']/*[local-name()='li']");
        assertThat(items.getLength()).isEqualTo(2);
        assertThat(items.item(0).getTextContent()).contains("two leaders at once");
        assertThat(items.item(1).getTextContent()).isEqualTo("epoch 2 was reused");
    }

    @Test
    void staleAndUnfinishedAttemptsAreDrawnEachOnTheirOwn() throws Exception {
        Document doc = parse(ChaosReport.html(clean()));
        NodeList stale = xpath(doc, ATTEMPTS + "//*[local-name()='line'][@class='stale']");
        assertThat(stale.getLength()).isEqualTo(1);
        assertThat(stale.item(0).getTextContent()).contains("n1", "epoch 1");
        // 19.0 and 19.5 s never ended.
        assertThat(xpath(doc, ATTEMPTS + "//*[local-name()='line'][@class='unfinished']")
                        .getLength())
                .isEqualTo(2);
        assertThat(xpath(doc, ATTEMPTS + "//*[local-name()='path'][@class='accepted']")
                        .getLength())
                .isEqualTo(2);
    }

    @Test
    void consecutiveObservationsOfOneStateBecomeOneSegment() throws Exception {
        Document doc = parse(ChaosReport.html(clean()));
        // n1: LEADER e1, PAUSED, FOLLOWER e2. n2: FOLLOWER e1, CANDIDATE, LEADER e2. n3: FOLLOWER e1, CANDIDATE,
        // FOLLOWER e2.
        assertThat(xpath(doc, "//*[local-name()='rect'][starts-with(@class,'role ')]")
                        .getLength())
                .isEqualTo(9);
        NodeList leaders = xpath(doc, "//*[local-name()='rect'][@class='role role-leader']");
        assertThat(leaders.getLength()).isEqualTo(2);
        assertThat(((Element) leaders.item(0)).getAttribute("fill")).isEqualTo(ChaosReport.epochColour(1));
        assertThat(((Element) leaders.item(1)).getAttribute("fill")).isEqualTo(ChaosReport.epochColour(2));
    }

    @Test
    void faultBandsCoverTheirTargetsOrEveryLaneWhenThereIsNone() throws Exception {
        Document doc = parse(ChaosReport.html(clean()));
        NodeList faults = xpath(doc, "//*[local-name()='g'][@class='fault']");
        assertThat(faults.getLength()).isEqualTo(2);
        Element pause = (Element) faults.item(0);
        Element delay = (Element) faults.item(1);
        assertThat(pause.getElementsByTagNameNS("*", "rect").getLength()).isEqualTo(1);
        assertThat(pause.getElementsByTagNameNS("*", "title").item(0).getTextContent())
                .isEqualTo("#0 pause: pause n1 (the leader) for 3 s (5.000–8.000 s)");
        assertThat(delay.getElementsByTagNameNS("*", "rect").getLength()).isEqualTo(3);
    }

    @Test
    void tablesListFaultsWithTheirRecoveryAndEpochsWithTheirWrites() throws Exception {
        Document doc = parse(ChaosReport.html(clean()));
        NodeList faultRows = xpath(doc, "//*[local-name()='table'][@class='faults']/*[local-name()='tr']");
        assertThat(faultRows.getLength()).isEqualTo(3);
        assertThat(faultRows.item(1).getTextContent()).contains("pause", "n1", "5.000", "8.000", "300", "5000", "OK");
        assertThat(faultRows.item(2).getTextContent()).contains("delay", "all", "never", "not converged");
        NodeList epochRows = xpath(doc, "//*[local-name()='table'][@class='epochs']/*[local-name()='tr']");
        assertThat(epochRows.getLength()).isEqualTo(3);
        // Epoch 1: n1, 9 accepted, 1 stale.
        assertThat(epochRows.item(1).getTextContent()).contains("n1", "0.500", "8.010");
        NodeList cells = ((Element) epochRows.item(1)).getElementsByTagNameNS("*", "td");
        assertThat(cells.item(4).getTextContent()).isEqualTo("9");
        assertThat(cells.item(5).getTextContent()).isEqualTo("1");
    }

    @Test
    void untrustedTextIsEscapedEverywhere() throws Exception {
        String evil = "<script>alert('x')</script> & \"quoted\" \u0001";
        ChaosRecord base = small(List.of("violation " + evil), "pause " + evil);
        List<Observation> obs = new ArrayList<>(base.observations());
        obs.add(new Observation("n<4>", T0 + S, "<b>ROLE</b>", "l\"x", 3));
        List<Attempt> attempts = new ArrayList<>(base.attempts());
        attempts.add(new Attempt(3, "n<4>", 0, T0 + 2 * S, 0, "<img src=x>"));
        ChaosRecord r = new ChaosRecord(
                "a<b",
                "s&t",
                "m\"",
                1,
                "run --x '<y>'",
                List.of("n1", "n2", "n3"),
                T0,
                T0 + 20 * S,
                base.faults(),
                obs,
                attempts,
                base.verdict());
        String html = ChaosReport.html(r);
        assertThat(html).doesNotContain("<script", "<b>ROLE", "<img", "n<4>");
        assertThat(html).contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot;");
        Document doc = parse(html);
        // The unlisted node still gets a lane, named as it is.
        assertThat(xpath(doc, "//*[local-name()='g'][@class='lane'][@data-node='n<4>']")
                        .getLength())
                .isEqualTo(1);
        assertThat(doc.getDocumentElement().getTextContent()).contains("pause <script>alert('x')</script>");
    }

    @Test
    void emptyRecordStillRenders() throws Exception {
        ChaosRecord r = new ChaosRecord(
                "quorum",
                "",
                "command",
                7,
                "",
                List.of("n1"),
                T0,
                T0,
                List.of(),
                List.of(),
                List.of(),
                new Verdict(List.of(), List.of(), 0, 0, 0));
        Document doc = parse(ChaosReport.html(r));
        assertThat(xpath(doc, "//*[local-name()='g'][@class='lane']").getLength())
                .isEqualTo(1);
    }

    @Test
    void tenMinuteRunStaysSmall() throws Exception {
        long seed = 20261126L;
        System.out.println("ChaosReportTest.tenMinuteRunStaysSmall seed " + seed);
        ChaosRecord r = SyntheticRun.generate(seed);
        assertThat(r.observations()).hasSize(40_000);
        assertThat(r.attempts().size()).isBetween(11_000, 12_500);
        String html = ChaosReport.html(r);
        int bytes = html.getBytes(StandardCharsets.UTF_8).length;
        System.out.println("  page: " + bytes + " bytes");
        assertThat(bytes).isLessThan(5 * 1024 * 1024);
        Document doc = parse(html);
        long staleDrawn = xpath(doc, ATTEMPTS + "//*[local-name()='line'][@class='stale']")
                .getLength();
        long stale =
                r.attempts().stream().filter(a -> a.outcome().equals("stale")).count();
        assertThat(stale).isPositive();
        assertThat(staleDrawn).isEqualTo(stale);
        // The page the lead looks at: target/chaos-sample.html.
        ChaosReport.write(r, Path.of("target", "chaos-sample.html"));
    }

    @Test
    void flappingRunWithRandomRolesStaysSmall() throws Exception {
        long seed = 77L;
        System.out.println("ChaosReportTest.flappingRunWithRandomRolesStaysSmall seed " + seed);
        Random random = new Random(seed);
        List<String> nodes = List.of("n1", "n2", "n3", "n4", "n5");
        String[] roles = {"LEADER", "FOLLOWER", "CANDIDATE", "DOWN", "PAUSED", "UNREACHABLE"};
        List<Observation> obs = new ArrayList<>();
        long end = 600 * S;
        for (int i = 0; i < 40_000; i++) {
            long at = T0 + (long) i * (end / 40_000);
            obs.add(new Observation(
                    nodes.get(i % 5),
                    at,
                    roles[random.nextInt(roles.length)],
                    "n" + (1 + random.nextInt(5)),
                    random.nextInt(60)));
        }
        List<Attempt> attempts = new ArrayList<>();
        for (int i = 0; i < 12_000; i++) {
            long at = T0 + (long) (random.nextDouble() * end);
            int kind = random.nextInt(10);
            attempts.add(new Attempt(
                    random.nextInt(60),
                    nodes.get(random.nextInt(5)),
                    i,
                    at,
                    kind == 0 ? 0 : at + MS,
                    kind == 0 ? "" : kind < 4 ? "stale" : "accepted"));
        }
        List<Fault> faults = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            long from = T0 + (long) (random.nextDouble() * end);
            faults.add(new Fault("flap", "flap #" + i, List.of(nodes.get(random.nextInt(5))), from, from + 2 * S));
        }
        ChaosRecord r = new ChaosRecord(
                "bully",
                "",
                "task",
                seed,
                "replay",
                nodes,
                T0,
                T0 + end,
                faults,
                obs,
                attempts,
                new Verdict(List.of(), List.of(), 0, 0, 0));
        String html = ChaosReport.html(r);
        int bytes = html.getBytes(StandardCharsets.UTF_8).length;
        System.out.println("  page: " + bytes + " bytes");
        assertThat(bytes).isLessThan(5 * 1024 * 1024);
        parse(html);
    }

    @Test
    void writeStoresThePageInUtf8() throws IOException {
        Path file = Files.createTempFile("chaos-report", ".html");
        try {
            ChaosReport.write(clean(), file);
            assertThat(Files.readString(file, StandardCharsets.UTF_8)).isEqualTo(ChaosReport.html(clean()));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void escapeReplacesCharactersXmlForbids() {
        assertThat(ChaosReport.esc("a\u0000b\uD800c\uD83D\uDE00")).isEqualTo("a\uFFFDb\uFFFDc\uD83D\uDE00");
        assertThat(ChaosReport.esc("plain")).isSameAs("plain");
    }

    // ---- helpers ----

    private static Document parse(String xml) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        DocumentBuilder b = f.newDocumentBuilder();
        b.setErrorHandler(null);
        return b.parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }

    private static NodeList xpath(Document doc, String expression) throws Exception {
        return (NodeList) XPathFactory.newInstance().newXPath().evaluate(expression, doc, XPathConstants.NODESET);
    }

    /**
     * A plausible ten-minute run of five nodes: a status poll of every node every 75 ms (40 000 observations), the
     * leader writing every 50 ms, a fault every 20 to 40 s. A fault on the leader makes the others elect a new
     * leader with the next epoch; a paused leader writes once more when it resumes and is refused by the fence; a
     * killed leader leaves its last write unfinished.
     */
    static final class SyntheticRun {
        private SyntheticRun() {}

        static ChaosRecord generate(long seed) {
            Random random = new Random(seed);
            List<String> nodes = List.of("n1", "n2", "n3", "n4", "n5");
            long end = 600 * S;
            String[] kinds = {"kill", "pause", "partition", "isolate", "delay", "store-outage"};
            List<Fault> faults = new ArrayList<>();
            List<Recovery> recoveries = new ArrayList<>();
            // The timeline of leadership: per fault on the leader, when the next leader took over.
            List<long[]> terms = new ArrayList<>(); // {fromNs, epoch, leader index}
            int leader = 0;
            long epoch = 1;
            terms.add(new long[] {2 * S, epoch, leader});
            long t = 15 * S;
            while (t < end - 30 * S) {
                String kind = kinds[random.nextInt(kinds.length)];
                long duration = (1000 + random.nextInt(5000)) * MS;
                boolean onLeader = !kind.equals("delay") && !kind.equals("store-outage") && random.nextInt(4) > 0;
                int target = onLeader ? leader : (leader + 1 + random.nextInt(4)) % 5;
                List<String> targets =
                        kind.equals("delay") || kind.equals("store-outage") ? List.of() : List.of(nodes.get(target));
                String desc =
                        switch (kind) {
                            case "kill" -> "kill -9 " + nodes.get(target) + (onLeader ? " (the leader)" : "");
                            case "pause" -> "pause " + nodes.get(target) + (onLeader ? " (the leader)" : "") + " for "
                                    + duration / MS + " ms";
                            case "partition" -> "partition " + nodes.get(target) + " from the rest";
                            case "isolate" -> "isolate " + nodes.get(target);
                            case "delay" -> "delay every link by " + (50 + random.nextInt(200)) + " ms";
                            default -> "stop the store for " + duration / MS + " ms";
                        };
                if (kind.equals("isolate")) {
                    onLeader = true;
                    target = leader;
                    targets = List.of(nodes.get(target));
                    desc = "isolate " + nodes.get(target) + " (the leader)";
                }
                faults.add(new Fault(kind, desc, targets, T0 + t, T0 + t + duration));
                long converged;
                if (onLeader && !kind.equals("delay")) {
                    long electedAt = t + (800 + random.nextInt(1500)) * MS;
                    leader = (leader + 1 + random.nextInt(4)) % 5;
                    epoch++;
                    terms.add(new long[] {electedAt, epoch, leader});
                    converged = Math.max(electedAt, t + duration) + (100 + random.nextInt(400)) * MS;
                } else {
                    converged = t + duration + (50 + random.nextInt(300)) * MS;
                }
                int luck = random.nextInt(12);
                if (luck == 0) {
                    converged += 6 * S; // over the bound
                } else if (luck == 1) {
                    converged = 0; // never
                }
                recoveries.add(new Recovery(faults.size() - 1, converged == 0 ? 0 : T0 + converged, 5 * S));
                t += (20 + random.nextInt(20)) * S;
            }
            List<Observation> obs = new ArrayList<>(40_000);
            for (int tick = 0; tick < 8000; tick++) {
                long at = (long) tick * 75 * MS;
                long[] term = termAt(terms, at);
                for (int n = 0; n < 5; n++) {
                    long jittered = T0 + at + random.nextInt(5) * MS;
                    Fault f = faultOn(faults, nodes.get(n), at);
                    if (f != null) {
                        String role =
                                switch (f.kind()) {
                                    case "kill" -> "DOWN";
                                    case "pause" -> "PAUSED";
                                    default -> "UNREACHABLE";
                                };
                        obs.add(new Observation(nodes.get(n), jittered, role, null, 0));
                    } else if (term == null) {
                        obs.add(new Observation(nodes.get(n), jittered, "CANDIDATE", null, 0));
                    } else if (electing(terms, at)) {
                        obs.add(new Observation(nodes.get(n), jittered, "CANDIDATE", null, term[1]));
                    } else {
                        boolean leads = term[2] == n;
                        obs.add(new Observation(
                                nodes.get(n),
                                jittered,
                                leads ? "LEADER" : "FOLLOWER",
                                nodes.get((int) term[2]),
                                term[1]));
                    }
                }
            }
            List<Attempt> attempts = new ArrayList<>();
            long counter = 0;
            for (long at = 0; at < end; at += 50 * MS) {
                long[] term = termAt(terms, at);
                if (term == null) {
                    continue;
                }
                String writer = nodes.get((int) term[2]);
                Fault f = faultOn(faults, writer, at);
                if (f != null) {
                    continue;
                }
                attempts.add(new Attempt(term[1], writer, counter++, T0 + at, T0 + at + 4 * MS, "accepted"));
            }
            // The deposed leaders: a paused one writes when it resumes (refused); a killed one never ends its last.
            for (int i = 1; i < terms.size(); i++) {
                long[] prev = terms.get(i - 1);
                String writer = nodes.get((int) prev[2]);
                Fault f = faultOn(faults, writer, terms.get(i)[0]);
                if (f == null) {
                    continue;
                }
                if (f.kind().equals("kill")) {
                    attempts.add(new Attempt(prev[1], writer, counter++, f.fromNs() - MS, 0, ""));
                } else {
                    for (int k = 0; k < 1 + random.nextInt(3); k++) {
                        long at = f.toNs() + (5 + 20 * k) * MS;
                        attempts.add(new Attempt(prev[1], writer, counter++, at, at + 3 * MS, "stale"));
                    }
                }
            }
            attempts.sort((a, b) -> Long.compare(a.startedNs(), b.startedNs()));
            long accepted = attempts.stream()
                    .filter(a -> a.outcome().equals("accepted"))
                    .count();
            long stale =
                    attempts.stream().filter(a -> a.outcome().equals("stale")).count();
            List<String> violations = new ArrayList<>();
            for (Recovery rec : recoveries) {
                if (rec.convergedNs() != 0
                        && rec.convergedNs() - faults.get(rec.fault()).toNs() > rec.boundNs()) {
                    violations.add("fault #" + rec.fault() + " ("
                            + faults.get(rec.fault()).kind()
                            + "): the cluster took longer than 5000 ms to agree on one leader");
                }
            }
            return new ChaosRecord(
                    "lease",
                    "postgres",
                    "task",
                    seed,
                    "java -cp bellwether-bench/target/benchmarks.jar io.bellwether.bench.chaos.Chaos --algorithm lease"
                            + " --store postgres --seed " + seed + " --duration 600s",
                    nodes,
                    T0,
                    T0 + 7999 * 75 * MS,
                    faults,
                    obs,
                    attempts,
                    new Verdict(violations, recoveries, (int) stale / 2, accepted, stale));
        }

        /** The term in force at {@code at} (relative to the start), or null before the first election. */
        private static long[] termAt(List<long[]> terms, long at) {
            long[] current = null;
            for (long[] term : terms) {
                if (term[0] <= at) {
                    current = term;
                }
            }
            return current;
        }

        /** Whether the members are electing: the 400 ms before a new term begins. */
        private static boolean electing(List<long[]> terms, long at) {
            for (int i = 1; i < terms.size(); i++) {
                long from = terms.get(i)[0];
                if (at < from && from - at <= 400 * MS) {
                    return true;
                }
            }
            return false;
        }

        private static Fault faultOn(List<Fault> faults, String node, long at) {
            for (Fault f : faults) {
                if (f.targets().contains(node) && f.fromNs() - T0 <= at && at < f.toNs() - T0) {
                    return f;
                }
            }
            return null;
        }
    }
}
