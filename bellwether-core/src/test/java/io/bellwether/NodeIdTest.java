package io.bellwether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.state.GroupNames;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class NodeIdTest {
    private static final String POOL = "aZ09._-/ :é\u0000\u00ffAz";

    @Test
    void acceptsOneToSixtyFourLettersDigitsDotsUnderscoresAndDashes() {
        assertThat(NodeId.of("n1").value()).isEqualTo("n1");
        assertThat(NodeId.of(".").value()).isEqualTo(".");
        assertThat(NodeId.of("a".repeat(64)).value()).hasSize(64);
        assertThat(NodeId.of("Node-b.2_x").value()).isEqualTo("Node-b.2_x");
    }

    @Test
    void refusesAnythingElseNamingTheId() {
        for (String bad : new String[] {"", "a".repeat(65), "n 1", "n/1", "n:1", "é", "n\u00001"}) {
            assertThatThrownBy(() -> NodeId.of(bad))
                    .as("'%s'", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is invalid");
        }
    }

    @Test
    void validationAgreesWithTheDocumentedPatternsOnRandomStrings() {
        Pattern ids = Pattern.compile("[A-Za-z0-9._-]{1,64}");
        Pattern groups = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
        SplittableRandom random = new SplittableRandom(20261122);
        for (int i = 0; i < 20_000; i++) {
            StringBuilder s = new StringBuilder();
            int length = random.nextInt(i % 100 == 0 ? 70 : 4);
            for (int j = 0; j < length; j++) {
                s.append(POOL.charAt(random.nextInt(POOL.length())));
            }
            String text = s.toString();
            assertThat(accepted(() -> NodeId.of(text)))
                    .as("id '%s'", text)
                    .isEqualTo(ids.matcher(text).matches());
            assertThat(accepted(() -> GroupNames.check("group", text)))
                    .as("group '%s'", text)
                    .isEqualTo(groups.matcher(text).matches());
        }
    }

    @Test
    void equalIdsAreEqualAndHashAlike() {
        NodeId a = NodeId.of("n1");
        NodeId b = new NodeId(new String("n1".toCharArray()));

        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b).isNotEqualTo(NodeId.of("n2"));
        assertThat(a.equals(null)).isFalse();
        assertThat(a.equals("n1")).isFalse();
    }

    private static boolean accepted(Runnable r) {
        try {
            r.run();
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
