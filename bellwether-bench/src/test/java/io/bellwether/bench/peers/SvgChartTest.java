package io.bellwether.bench.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class SvgChartTest {
    private static PeerStats stats(long... ms) {
        PeerStats s = new PeerStats();
        for (long m : ms) {
            s.add(m * 1_000_000);
        }
        return s;
    }

    private static Document parse(String svg) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void isWellFormedWithOneSeriesPerSystemInEachScenario() throws Exception {
        PeerStats slow = stats(39_000, 41_000);
        slow.addTimeout();
        String svg = SvgChart.render(
                "Machine: 2 cores <test> & \"quotes\"",
                List.of("kill -9", "SIGTERM"),
                List.of("bellwether-3", "ratis", "curator-default"),
                Map.of(
                        "kill -9",
                        Map.of("bellwether-3", stats(300, 400, 500), "ratis", stats(250, 300), "curator-default", slow),
                        "SIGTERM",
                        Map.of("bellwether-3", stats(5, 7))));
        Document doc = parse(svg);
        assertEquals("svg", doc.getDocumentElement().getLocalName());
        NodeList groups = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "g");
        Set<String> killSystems = new HashSet<>();
        int series = 0;
        for (int i = 0; i < groups.getLength(); i++) {
            Element g = (Element) groups.item(i);
            if (g.getAttribute("class").equals("series")) {
                series++;
                if (g.getAttribute("data-scenario").equals("kill -9")) {
                    killSystems.add(g.getAttribute("data-system"));
                }
            }
        }
        assertEquals(6, series);
        assertEquals(Set.of("bellwether-3", "ratis", "curator-default"), killSystems);
        // One dot per trial that ended: 3 + 2 + 2 in kill -9, 2 in SIGTERM.
        assertEquals(
                9,
                doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "circle")
                        .getLength());
        assertTrue(svg.contains("1 timeout"));
    }

    @Test
    void timeAxisIsLogarithmic() {
        double oneMs = SvgChart.x(1);
        double tenMs = SvgChart.x(10);
        double hundredMs = SvgChart.x(100);
        assertEquals(tenMs - oneMs, hundredMs - tenMs, 1e-9);
        // Out of range values sit at the ends.
        assertEquals(oneMs, SvgChart.x(0.001), 1e-9);
        assertEquals(SvgChart.x(100_000), SvgChart.x(1e9), 1e-9);
    }

    @Test
    void escapingMakesAnyNameSafe() throws Exception {
        String svg = SvgChart.render("<&>", List.of("a\"<b"), List.of("x&y"), Map.of());
        parse(svg);
        assertTrue(svg.contains("x&amp;y"));
    }

    @Test
    void aLongTitleIsWrappedAtSpaces() {
        List<String> lines = SvgChart.wrap("aaa bbb ccc dddddddddd e", 7);
        assertEquals(List.of("aaa bbb", "ccc", "dddddddddd", "e"), lines);
        assertEquals(List.of(""), SvgChart.wrap("", 7));
    }
}
