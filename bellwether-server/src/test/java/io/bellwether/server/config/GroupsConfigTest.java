package io.bellwether.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code groups} and {@code spread-leaders}: a node of many election groups. */
class GroupsConfigTest {
    @TempDir
    Path dir;

    @BeforeEach
    void writeSecret() throws IOException {
        Files.writeString(dir.resolve("secret"), "0123456789abcdef0123\n", StandardCharsets.UTF_8);
    }

    /** The valid example plus {@code extra}, whose {@code algorithm:} line, if any, replaces the example's. */
    private NodeConfig parse(String extra) throws ConfigException {
        String base = ConfigLoaderTest.VALID;
        if (extra.startsWith("algorithm: ")) {
            String line = extra.substring(0, extra.indexOf('\n') + 1);
            base = base.replace("algorithm: quorum\n", line);
            extra = extra.substring(line.length());
        }
        return ConfigLoader.parse(base + extra, dir, "test.yaml");
    }

    private List<String> errorsOf(String extra) {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> parse(extra));
        assertThat(e).as("expected a configuration error").isNotNull();
        return e.errors();
    }

    @Test
    void oneGroupByDefaultAsBefore() throws Exception {
        NodeConfig c = parse("");

        assertThat(c.groups()).containsExactly("default");
        assertThat(c.manyGroups()).isFalse();
        assertThat(c.spreadLeaders()).isFalse();
    }

    @Test
    void aCountNamesTheGroupsFromZeroAndSpreadsTheirLeadersByDefault() throws Exception {
        NodeConfig c = parse("groups: 1000\n");

        assertThat(c.groups()).hasSize(1000).startsWith("group-0", "group-1").endsWith("group-999");
        assertThat(c.group()).isEqualTo("group-0");
        assertThat(c.manyGroups()).isTrue();
        assertThat(c.spreadLeaders()).isTrue();
    }

    @Test
    void aListKeepsItsOrder() throws Exception {
        NodeConfig c = parse("groups: [orders, billing, invoices]\n");

        assertThat(c.groups()).containsExactly("orders", "billing", "invoices");
        assertThat(c.group()).isEqualTo("orders");
    }

    @Test
    void oneGroupInAListIsANodeOfOneGroup() throws Exception {
        NodeConfig c = parse("groups: [orders]\n");

        assertThat(c.groups()).containsExactly("orders");
        assertThat(c.manyGroups()).isFalse();
        assertThat(c.spreadLeaders()).isFalse();
    }

    @Test
    void spreadCanBeTurnedOffOrOnExplicitly() throws Exception {
        assertThat(parse("groups: 10\nspread-leaders: false\n").spreadLeaders()).isFalse();
        assertThat(parse("spread-leaders: true\n").spreadLeaders()).isTrue();
    }

    @Test
    void countsOutOfRangeAreRefusedWithTheRange() {
        assertThat(errorsOf("groups: 0\n")).singleElement().asString().contains("groups = '0'", "1 to 10000");
        assertThat(errorsOf("groups: 10001\n")).singleElement().asString().contains("groups = '10001'", "1 to 10000");
        assertThat(errorsOf("groups: -3\n")).singleElement().asString().contains("groups = '-3'");
        assertThat(errorsOf("groups: 2.5\n")).singleElement().asString().contains("groups = '2.5'");
        assertThat(errorsOf("groups: []\n")).singleElement().asString().contains("groups");
        assertThat(errorsOf("groups: lots\n")).singleElement().asString().contains("groups = 'lots'");
    }

    @Test
    void badNamesAndRepeatsAreNamedByPosition() {
        assertThat(errorsOf("groups: [orders, ../etc, orders, {a: 1}]\n"))
                .hasSize(3)
                .anySatisfy(e -> assertThat(e).contains("groups[1]", "../etc"))
                .anySatisfy(e -> assertThat(e).contains("groups[2]", "'orders'", "twice"))
                .anySatisfy(e -> assertThat(e).contains("groups[3]"));
    }

    @Test
    void groupAndGroupsTogetherAreRefused() {
        assertThat(errorsOf("group: billing\ngroups: 3\n"))
                .singleElement()
                .asString()
                .contains("group and groups are both given");
    }

    @Test
    void spreadIsRefusedWhereItCannotWork() {
        assertThat(errorsOf("algorithm: ring\nspread-leaders: true\n"))
                .singleElement()
                .asString()
                .contains("spread-leaders = true", "algorithm: ring");
        assertThat(errorsOf("quorum: {priority: 5}\nspread-leaders: true\n"))
                .singleElement()
                .asString()
                .contains("spread-leaders = true", "priorities set by hand");
        assertThat(errorsOf("spread-leaders: sometimes\n"))
                .singleElement()
                .asString()
                .contains("spread-leaders");
    }

    @Test
    void handSetPrioritiesOrAnAlgorithmWithoutThemLeaveTheDefaultOff() throws Exception {
        assertThat(parse("groups: 5\nquorum: {priority: 5}\n").spreadLeaders()).isFalse();
        assertThat(parse("algorithm: ring\ngroups: 5\n").spreadLeaders()).isFalse();
        assertThat(parse("algorithm: bully\ngroups: 5\n").spreadLeaders()).isTrue();
    }
}
