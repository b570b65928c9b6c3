package io.bellwether.bench.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class GroupViewsTest {
    private static final List<String> MEMBERS = List.of("n1", "n2", "n3");

    private static ViewLine view(int group, String leader, long epoch, long nanos) {
        return new ViewLine(group, Optional.ofNullable(leader), epoch, nanos);
    }

    @Test
    void viewLineRoundTripsAndParsesNoLeader() {
        ViewLine v = view(12, "n2", 7, 123_456_789L);
        assertThat(v.format()).isEqualTo("scale view g12 n2 7 123456789");
        assertThat(ViewLine.parse(v.format())).contains(v);
        assertThat(ViewLine.parse("scale view g3 - 0 -5")).contains(view(3, null, 0, -5));
        assertThat(ViewLine.parse("scale started 17")).isEmpty();
        assertThat(ViewLine.parse("some log line")).isEmpty();
    }

    @Test
    void malformedViewLinesAreRefused() {
        assertThatThrownBy(() -> ViewLine.parse("scale view g1 n1 7")).hasMessageContaining("malformed");
        assertThatThrownBy(() -> ViewLine.parse("scale view x1 n1 7 8")).hasMessageContaining("malformed");
        assertThatThrownBy(() -> ViewLine.parse("scale view g1 n1 seven 8")).hasMessageContaining("numbers");
        assertThatThrownBy(() -> ViewLine.parse("scale view g-1 n1 7 8")).hasMessageContaining("negative");
    }

    @Test
    void groupAgreesOnlyWhenEveryMemberNamesTheSameLeaderAtTheSameEpoch() {
        GroupViews views = new GroupViews(2, MEMBERS);
        views.apply("n1", view(0, "n1", 3, 100));
        views.apply("n2", view(0, "n1", 3, 140));
        assertThat(views.agreed(0, MEMBERS)).as("n3 has not reported").isEmpty();
        views.apply("n3", view(0, "n1", 2, 120));
        assertThat(views.agreed(0, MEMBERS)).as("n3 at an older epoch").isEmpty();
        views.apply("n3", view(0, "n1", 3, 130));
        assertThat(views.agreed(0, MEMBERS)).contains(new GroupViews.Agreed("n1", 3, 140));
        assertThat(views.summary(MEMBERS)).isEqualTo(new GroupViews.Summary(1, OptionalLong.of(140)));

        views.apply("n2", view(0, null, 0, 150));
        assertThat(views.agreed(0, MEMBERS)).as("n2 lost the leader").isEmpty();
        assertThat(views.summary(MEMBERS)).isEqualTo(new GroupViews.Summary(0, OptionalLong.empty()));
    }

    @Test
    void aLeaderOutsideTheLiveMembersIsNoAgreement() {
        GroupViews views = new GroupViews(1, MEMBERS);
        views.apply("n2", view(0, "n1", 4, 10));
        views.apply("n3", view(0, "n1", 4, 11));
        assertThat(views.agreed(0, List.of("n2", "n3"))).isEmpty();
        assertThat(views.agreed(0, List.of("n1", "n2", "n3"))).isEmpty();
    }

    @Test
    void groupsByLeaderCountsAgreedGroupsOnly() {
        GroupViews views = new GroupViews(3, MEMBERS);
        for (String m : MEMBERS) {
            views.apply(m, view(0, "n2", 1, 1));
            views.apply(m, view(1, "n2", 1, 1));
            views.apply(m, view(2, "n3", 1, 1));
        }
        views.apply("n1", view(2, "n1", 2, 2));
        assertThat(views.groupsByLeader(MEMBERS))
                .containsEntry("n1", List.of())
                .containsEntry("n2", List.of(0, 1))
                .containsEntry("n3", List.of());
    }

    @Test
    void reledAtIsTheNewLeadersOwnStampAtAHigherEpoch() {
        GroupViews views = new GroupViews(1, MEMBERS);
        for (String m : MEMBERS) {
            views.apply(m, view(0, "n1", 5, 10));
        }
        assertThat(views.reledAt(0, "n1", 5)).isEmpty();
        views.apply("n2", view(0, "n3", 6, 20));
        assertThat(views.reledAt(0, "n1", 5)).as("n2 only follows n3").isEmpty();
        views.apply("n3", view(0, "n3", 6, 25));
        assertThat(views.reledAt(0, "n1", 5)).isEqualTo(OptionalLong.of(25));
    }

    @Test
    void unknownMemberOrGroupIsRefused() {
        GroupViews views = new GroupViews(2, MEMBERS);
        assertThatThrownBy(() -> views.apply("n9", view(0, "n1", 1, 1))).hasMessageContaining("unknown member");
        assertThatThrownBy(() -> views.apply("n1", view(2, "n1", 1, 1))).hasMessageContaining("out of range");
    }
}
