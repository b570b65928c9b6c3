package io.bellwether.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.Counters;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.ScriptedContext;
import io.bellwether.elector.StoreRequest;
import io.bellwether.spi.LeaseRecord;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The lease elector driven by hand: exact store requests out, scripted replies in, role, epoch, leader and
 * validity checked after each step. Times are on the scripted clock; the store's clock is given per reply.
 */
class LeaseElectorTest {
    private static final NodeId A = NodeId.of("a");
    private static final long MS = 1_000_000L;
    /** duration 3 s × 0.99 − 100 ms. */
    private static final long VALIDITY = 2_870 * MS;

    private final FakeLeaseStore fake = new FakeLeaseStore();
    private final ScriptedContext ctx = new ScriptedContext(A, List.of(A), 7);

    @AfterEach
    void shutdown() {
        fake.shutdown();
    }

    private LeaseConfig config(boolean push) {
        return LeaseConfig.builder().store(fake.view(push)).holderSuffix("s1").build();
    }

    private LeaseElector started(boolean push) {
        ctx.setNanos(1_000 * MS);
        LeaseElector e = (LeaseElector) config(push).create(ctx);
        e.start();
        LeaseRequest.Read read = (LeaseRequest.Read) only(ctx.takeStoreRequests());
        e.onStoreReply(new LeaseReply.Current(read.id(), Optional.empty()));
        return e;
    }

    private static StoreRequest only(List<StoreRequest> requests) {
        assertThat(requests).hasSize(1);
        return requests.get(0);
    }

    private LeaseRequest.AcquireOrRenew poll() {
        List<StoreRequest> rs = ctx.takeStoreRequests();
        List<StoreRequest> acquires = rs.stream()
                .filter(r -> r instanceof LeaseRequest.AcquireOrRenew)
                .toList();
        assertThat(acquires).as("acquire-or-renew requests among %s", rs).hasSize(1);
        return (LeaseRequest.AcquireOrRenew) acquires.get(0);
    }

    private static LeaseReply.Lease lease(long id, String holder, long token, long remainingMillis) {
        return new LeaseReply.Lease(id, new LeaseRecord(holder, token, 50_000 + remainingMillis, 50_000));
    }

    /** Starts, polls once and acquires token {@code token}; returns the elector, leading. */
    private LeaseElector leading(long token) {
        LeaseElector e = started(false);
        LeaseRequest.AcquireOrRenew p = poll();
        ctx.advanceMillis(5);
        e.onStoreReply(lease(p.id(), "a-s1", token, 3_000));
        return e;
    }

    @Test
    void startReadsTheLeaseThenPollsWithTokenZero() {
        LeaseElector e = started(false);
        assertThat(e.state()).isEqualTo(new ElectorState(Role.FOLLOWER, 0, Optional.empty()));
        LeaseRequest.AcquireOrRenew p = poll();
        assertThat(p.holder()).isEqualTo("a-s1");
        assertThat(p.token()).isZero();
        assertThat(p.duration()).isEqualTo(Duration.ofSeconds(3));
        assertThat(p.timeoutNanos()).isEqualTo(1_000 * MS);
    }

    @Test
    void followerBecomesLeaderWithValidityMeasuredFromTheSendTime() {
        LeaseElector e = started(false);
        long sent = ctx.nanoTime();
        LeaseRequest.AcquireOrRenew p = poll();
        ctx.advanceMillis(40);
        e.onStoreReply(lease(p.id(), "a-s1", 4, 3_000));
        assertThat(e.state()).isEqualTo(new ElectorState(Role.LEADER, 4, Optional.of(A)));
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.ELECTED);
        assertThat(ctx.validUntil()).isEqualTo(sent + VALIDITY);
        assertThat(ctx.deadline("STEP_DOWN")).contains(sent + 2_000 * MS);
        assertThat(ctx.deadline("ATTEMPT")).contains(sent + 1_000 * MS);
    }

    @Test
    void renewalMovesValidityForwardFromItsOwnSendTime() {
        LeaseElector e = leading(1);
        ctx.takeStoreRequests();
        e.onTimer(ctx.fire("ATTEMPT"));
        long sent = ctx.nanoTime();
        LeaseRequest.AcquireOrRenew renew = poll();
        assertThat(renew.token()).isEqualTo(1);
        assertThat(renew.timeoutNanos()).isLessThanOrEqualTo(1_000 * MS);
        ctx.advanceMillis(300);
        e.onStoreReply(lease(renew.id(), "a-s1", 1, 3_000));
        assertThat(e.state().role()).isEqualTo(Role.LEADER);
        assertThat(ctx.validUntil()).isEqualTo(sent + VALIDITY);
        assertThat(ctx.deadline("STEP_DOWN")).contains(sent + 2_000 * MS);
    }

    @Test
    void leaderWhoseRenewalsFailStepsDownAtTheRenewDeadlineBeforeItsValidityThenReleases() {
        LeaseElector e = leading(1);
        long validUntil = ctx.validUntil();
        ctx.takeStoreRequests();
        e.onTimer(ctx.fire("ATTEMPT"));
        LeaseRequest.AcquireOrRenew renew = poll();
        ctx.advanceMillis(10);
        e.onStoreReply(renew.failed(new IllegalStateException("connection refused")));
        assertThat(e.state().role()).isEqualTo(Role.LEADER);
        e.onTimer(ctx.fire("ATTEMPT"));
        LeaseRequest.AcquireOrRenew again = poll();
        // The store hangs: the request's own timeout is capped by the deadline, and the deadline fires first.
        assertThat(ctx.nanoTime() + again.timeoutNanos())
                .isLessThanOrEqualTo(ctx.deadline("STEP_DOWN").orElseThrow());
        e.onTimer(ctx.fire("STEP_DOWN"));
        assertThat(ctx.nanoTime()).isLessThan(validUntil);
        assertThat(e.state()).isEqualTo(new ElectorState(Role.FOLLOWER, 1, Optional.empty()));
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.LEASE_NOT_RENEWED);
        assertThat(ctx.takeStoreRequests()).singleElement().isInstanceOfSatisfying(LeaseRequest.Release.class, r -> {
            assertThat(r.holder()).isEqualTo("a-s1");
            assertThat(r.token()).isEqualTo(1);
        });
        // The renewal's timeout arrives later as a failure reply; polling goes on as a follower.
        e.onStoreReply(again.failed(new TimeoutException("late")));
        e.onTimer(ctx.fire("ATTEMPT"));
        assertThat(poll().token()).isZero();
    }

    @Test
    void aRenewalThatSucceedsOnlyAfterSteppingDownIsReleasedNotLedAgain() {
        LeaseElector e = leading(1);
        ctx.takeStoreRequests();
        e.onTimer(ctx.fire("ATTEMPT"));
        LeaseRequest.AcquireOrRenew renew = poll();
        e.onTimer(ctx.fire("STEP_DOWN"));
        ctx.takeStoreRequests();
        e.onStoreReply(lease(renew.id(), "a-s1", 1, 3_000));
        assertThat(e.state().role()).isEqualTo(Role.FOLLOWER);
        assertThat(ctx.takeStoreRequests()).singleElement().isInstanceOf(LeaseRequest.Release.class);
    }

    @Test
    void aPollShowingAnotherHolderMakesItTheKnownLeaderAtItsToken() {
        LeaseElector e = started(false);
        LeaseRequest.AcquireOrRenew p = poll();
        e.onStoreReply(lease(p.id(), "b-77aa", 9, 1_500));
        assertThat(e.state()).isEqualTo(new ElectorState(Role.FOLLOWER, 9, Optional.of(NodeId.of("b"))));
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.LEADER_DISCOVERED);
        long next = ctx.deadline("ATTEMPT").orElseThrow() - ctx.nanoTime();
        assertThat(next).isBetween(400 * MS, 600 * MS);
        // No news before that lease should have run out: the leader is forgotten.
        e.onTimer(ctx.fire("LEADER_EXPIRY"));
        assertThat(e.state()).isEqualTo(new ElectorState(Role.FOLLOWER, 9, Optional.empty()));
    }

    @Test
    void aLeaderThatFindsAnotherHolderStepsDown() {
        LeaseElector e = leading(1);
        ctx.takeStoreRequests();
        e.onTimer(ctx.fire("ATTEMPT"));
        LeaseRequest.AcquireOrRenew renew = poll();
        e.onStoreReply(lease(renew.id(), "b-77aa", 2, 3_000));
        assertThat(e.state()).isEqualTo(new ElectorState(Role.FOLLOWER, 2, Optional.of(NodeId.of("b"))));
        assertThat(ctx.announcements().stream().map(ScriptedContext.Announced::reason))
                .contains(ChangeReason.LEASE_NOT_RENEWED);
    }

    @Test
    void aLeaseLeftByAnEarlierIncarnationIsReleasedNotAdopted() {
        ctx.setNanos(1_000 * MS);
        LeaseElector e = (LeaseElector) config(false).create(ctx);
        e.start();
        LeaseRequest.Read read = (LeaseRequest.Read) only(ctx.takeStoreRequests());
        e.onStoreReply(new LeaseReply.Current(read.id(), Optional.of(new LeaseRecord("a-s1", 5, 52_000, 50_000))));
        List<StoreRequest> rs = ctx.takeStoreRequests();
        assertThat(rs).anySatisfy(r -> assertThat(r).isInstanceOfSatisfying(LeaseRequest.Release.class, rel -> {
            assertThat(rel.token()).isEqualTo(5);
        }));
        LeaseRequest.AcquireOrRenew p = (LeaseRequest.AcquireOrRenew) rs.stream()
                .filter(r -> r instanceof LeaseRequest.AcquireOrRenew)
                .findFirst()
                .orElseThrow();
        // The poll overtook the release: the old lease is still there under our id. Never lead under it.
        e.onStoreReply(lease(p.id(), "a-s1", 5, 1_900));
        assertThat(e.state().role()).isEqualTo(Role.FOLLOWER);
        assertThat(ctx.takeStoreRequests()).singleElement().isInstanceOf(LeaseRequest.Release.class);
        e.onTimer(ctx.fire("ATTEMPT"));
        LeaseRequest.AcquireOrRenew next = poll();
        e.onStoreReply(lease(next.id(), "a-s1", 6, 3_000));
        assertThat(e.state()).isEqualTo(new ElectorState(Role.LEADER, 6, Optional.of(A)));
    }

    @Test
    void aLeaseAcquiredByAnEarlierRequestWhoseReplyWasLostIsValidOnlyForWhatIsLeft() {
        LeaseElector e = started(false);
        LeaseRequest.AcquireOrRenew first = poll();
        e.onStoreReply(first.failed(new TimeoutException("reply lost")));
        e.onTimer(ctx.fire("ATTEMPT"));
        long sent = ctx.nanoTime();
        LeaseRequest.AcquireOrRenew second = poll();
        e.onStoreReply(lease(second.id(), "a-s1", 3, 2_000));
        assertThat(e.state()).isEqualTo(new ElectorState(Role.LEADER, 3, Optional.of(A)));
        assertThat(ctx.validUntil()).isEqualTo(sent + 2_000 * MS * 99 / 100 - 100 * MS);
        assertThat(ctx.deadline("STEP_DOWN").orElseThrow()).isLessThanOrEqualTo(ctx.validUntil());
    }

    @Test
    void stopAnnouncesRevocationBeforeReleasing() {
        LeaseElector e = leading(2);
        ctx.takeStoreRequests();
        int before = ctx.announcements().size();
        e.stop();
        assertThat(ctx.announcements()).hasSize(before + 1);
        assertThat(ctx.lastAnnouncement())
                .isEqualTo(new ScriptedContext.Announced(
                        new ElectorState(Role.DORMANT, 2, Optional.empty()), ChangeReason.STOPPED));
        assertThat(ctx.takeStoreRequests())
                .singleElement()
                .isInstanceOfSatisfying(
                        LeaseRequest.Release.class, r -> assertThat(r.token()).isEqualTo(2));
        assertThat(ctx.armed("ATTEMPT")).isFalse();
    }

    @Test
    void aPushedReleaseWakesAFollowerAtOnce() {
        LeaseElector e = started(true);
        List<StoreRequest> rs = ctx.takeStoreRequests();
        LeaseRequest.AwaitRelease watch = (LeaseRequest.AwaitRelease) rs.stream()
                .filter(r -> r instanceof LeaseRequest.AwaitRelease)
                .findFirst()
                .orElseThrow();
        LeaseRequest.AcquireOrRenew p = (LeaseRequest.AcquireOrRenew) rs.stream()
                .filter(r -> r instanceof LeaseRequest.AcquireOrRenew)
                .findFirst()
                .orElseThrow();
        e.onStoreReply(lease(p.id(), "b-77aa", 1, 3_000));
        assertThat(ctx.armed("ATTEMPT")).isTrue();
        e.onStoreReply(new LeaseReply.ReleasedNotification(watch.id()));
        List<StoreRequest> after = ctx.takeStoreRequests();
        assertThat(after).hasSize(2);
        assertThat(after).anySatisfy(r -> assertThat(r).isInstanceOf(LeaseRequest.AwaitRelease.class));
        assertThat(after).anySatisfy(r -> assertThat(r)
                .isInstanceOfSatisfying(LeaseRequest.AcquireOrRenew.class, a -> assertThat(a.token())
                        .isZero()));
    }

    @Test
    void storeFailuresAreRepliesAndPollingGoesOn() {
        LeaseElector e = started(false);
        LeaseRequest.AcquireOrRenew p = poll();
        e.onStoreReply(p.failed(new IllegalStateException("down")));
        assertThat(e.state().role()).isEqualTo(Role.FOLLOWER);
        e.onTimer(ctx.fire("ATTEMPT"));
        assertThat(poll().token()).isZero();
    }

    @Test
    void leaseWithATokenOutOfRangeIsAStoreErrorCountedAndNeverLedOrAdopted() {
        LeaseElector e = started(false);
        for (long token : new long[] {Long.MAX_VALUE, Counters.LIMIT, -1}) {
            LeaseRequest.AcquireOrRenew p = poll();
            e.onStoreReply(lease(p.id(), "a-s1", token, 3_000));
            assertThat(e.state()).isEqualTo(new ElectorState(Role.FOLLOWER, 0, Optional.empty()));
            assertThat(ctx.armed("ATTEMPT"))
                    .as("it polls again, as after a store error")
                    .isTrue();
            e.onTimer(ctx.fire("ATTEMPT"));
        }
        assertThat(e.outOfRangeTokens()).isEqualTo(3);
        LeaseRequest.AcquireOrRenew p = poll();
        assertThat(p.token()).as("no extreme token is renewed").isZero();
        e.onStoreReply(lease(p.id(), "a-s1", Counters.LIMIT - 1, 3_000));
        assertThat(e.state().role()).as("the last token of the range leads").isEqualTo(Role.LEADER);
    }

    @Test
    void startUpReadOfATokenOutOfRangeIsAStoreErrorAndIsReadAgain() {
        ctx.setNanos(1_000 * MS);
        LeaseElector e = (LeaseElector) config(false).create(ctx);
        e.start();
        LeaseRequest.Read read = (LeaseRequest.Read) only(ctx.takeStoreRequests());
        e.onStoreReply(new LeaseReply.Current(read.id(), Optional.of(new LeaseRecord("b-s1", Long.MAX_VALUE, 9, 1))));
        assertThat(e.state().epoch()).isZero();
        assertThat(e.outOfRangeTokens()).isEqualTo(1);
        assertThat(ctx.armed("READ")).isTrue();
    }

    // ---------------------------------------------------------------- resign (and stay)

    @Test
    void leaderResignsAnnouncingFollowerFirstThenReleasesItsLease() {
        LeaseElector e = leading(3);
        ctx.takeStoreRequests();

        e.resign(2_000 * MS);

        assertThat(e.state()).isEqualTo(new ElectorState(Role.FOLLOWER, 3, Optional.empty()));
        assertThat(ctx.lastAnnouncement().reason()).isEqualTo(ChangeReason.RESIGNED);
        assertThat(ctx.storeRequestsBeforeLastAnnouncement())
                .as("revoked before the release")
                .isZero();
        assertThat(ctx.takeStoreRequests()).singleElement().isInstanceOfSatisfying(LeaseRequest.Release.class, r -> {
            assertThat(r.holder()).isEqualTo("a-s1");
            assertThat(r.token()).isEqualTo(3);
        });
    }

    @Test
    void resignedMemberReadsInsteadOfAcquiringDuringItsHoldOffAndFollowsTheNewHolder() {
        LeaseElector e = leading(3);
        e.resign(2_000 * MS);
        long resignedAt = ctx.nanoTime();
        ctx.takeStoreRequests();

        e.onTimer(ctx.fire("ATTEMPT"));

        List<StoreRequest> rs = ctx.takeStoreRequests();
        assertThat(rs).as("no acquire-or-renew").noneMatch(r -> r instanceof LeaseRequest.AcquireOrRenew);
        LeaseRequest.Read read = (LeaseRequest.Read) only(rs);
        e.onStoreReply(new LeaseReply.Current(read.id(), Optional.of(new LeaseRecord("b-s1", 4, 53_000, 50_000))));
        assertThat(e.state()).isEqualTo(new ElectorState(Role.FOLLOWER, 4, Optional.of(NodeId.of("b"))));

        while (ctx.nanoTime() < resignedAt + 2_000 * MS) {
            e.onTimer(ctx.fire("ATTEMPT"));
            List<StoreRequest> during = ctx.takeStoreRequests();
            if (ctx.nanoTime() < resignedAt + 2_000 * MS) {
                assertThat(during).noneMatch(r -> r instanceof LeaseRequest.AcquireOrRenew);
                during.forEach(r -> e.onStoreReply(new LeaseReply.Current(
                        ((LeaseRequest.Read) r).id(), Optional.of(new LeaseRecord("b-s1", 4, 53_000, 50_000)))));
            } else {
                assertThat(during)
                        .as("contending again once the hold-off is over")
                        .anyMatch(r -> r instanceof LeaseRequest.AcquireOrRenew);
            }
        }
    }

    @Test
    void aLeaseAcquiredByAPollSentBeforeResigningIsReleasedNotLed() {
        LeaseElector e = started(false);
        LeaseRequest.AcquireOrRenew p = poll();

        e.resign(2_000 * MS);
        ctx.advanceMillis(5);
        e.onStoreReply(lease(p.id(), "a-s1", 7, 3_000));

        assertThat(e.state().role()).isEqualTo(Role.FOLLOWER);
        assertThat(ctx.announcements()).noneMatch(a -> a.state().role() == Role.LEADER);
        assertThat(ctx.takeStoreRequests()).anySatisfy(r -> assertThat(r)
                .isInstanceOfSatisfying(LeaseRequest.Release.class, rel -> assertThat(rel.token())
                        .isEqualTo(7)));
    }

    @Test
    void followerThatResignsOnlyStartsItsHoldOff() {
        LeaseElector e = started(false);
        ctx.takeStoreRequests();
        int announcements = ctx.announcements().size();

        e.resign(2_000 * MS);

        assertThat(ctx.announcements()).hasSize(announcements);
        assertThat(ctx.takeStoreRequests()).isEmpty();
    }
}
