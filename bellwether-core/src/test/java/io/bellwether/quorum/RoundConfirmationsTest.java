package io.bellwether.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The validity bookkeeping alone (rules 5, 7 and 10.4 of {@code docs/quorum.md}): five members, this one at index
 * 0, send times in plain nanoseconds.
 */
class RoundConfirmationsTest {
    private static final QuorumConfig CONFIG = QuorumConfig.defaults();
    private static final long VALIDITY = CONFIG.validityNanos();

    private RoundConfirmations confirmations;

    @BeforeEach
    void setUp() {
        confirmations = new RoundConfirmations(CONFIG, 5, 0);
        confirmations.clear();
    }

    @Test
    void withoutAMajoritysConfirmationThereIsNoValidity() {
        confirmations.record(1, 100);
        confirmations.confirm(1, 1);

        assertThat(confirmations.validUntil()).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void validityCountsFromTheLatestRoundAMajorityConfirmed() {
        sendTwoRounds();
        confirmations.confirm(1, 1);
        confirmations.confirm(2, 2);

        // This member at 200, member 1 at 100, member 2 at 200: three of five have confirmed the round of 100.
        assertThat(confirmations.validUntil()).isEqualTo(100 + VALIDITY);

        confirmations.confirm(1, 2);
        assertThat(confirmations.validUntil()).isEqualTo(200 + VALIDITY);
    }

    @Test
    void aLateConfirmationOfAnEarlierRoundDoesNotMoveAMembersConfirmationBack() {
        sendTwoRounds();
        confirmations.confirm(1, 2);
        confirmations.confirm(1, 1);

        assertThat(confirmations.confirmedAt(1)).isEqualTo(200);
    }

    @Test
    void aRoundTooOldToMatchOrNeverSentIsNotCounted() {
        for (long seq = 1; seq <= 65; seq++) {
            confirmations.record(seq, seq * 10);
        }

        assertThat(confirmations.confirm(1, 1)).isFalse(); // its slot now holds round 65
        assertThat(confirmations.confirm(1, 66)).isFalse();
        assertThat(confirmations.confirm(1, 0)).isFalse();
        assertThat(confirmations.confirmedAt(1)).isEqualTo(Long.MIN_VALUE);
        assertThat(confirmations.confirm(1, 65)).isTrue();
        assertThat(confirmations.confirmedAt(1)).isEqualTo(650);
    }

    @Test
    void forgettingARoundsSendTimesRefusesConfirmationsOfThem() {
        confirmations.record(1, 100);
        confirmations.forgetRounds();

        assertThat(confirmations.confirm(1, 1)).isFalse();
        // An empty slot reads as round 0, which is never sent: a peer echoing 0 confirms nothing.
        assertThat(confirmations.confirm(1, 0)).isFalse();
        assertThat(confirmations.confirmedAt(1)).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void theMostRecentPeerIsTheBestSuccessorTiesToTheLowestIndexNeverThisMember() {
        assertThat(confirmations.mostRecentPeer()).isEqualTo(-1);

        confirmations.confirmAt(0, 500);
        confirmations.confirmAt(3, 300);
        confirmations.confirmAt(2, 300);
        confirmations.confirmAt(4, 200);

        assertThat(confirmations.mostRecentPeer()).isEqualTo(2);

        confirmations.forget(2);
        assertThat(confirmations.mostRecentPeer()).isEqualTo(3);
    }

    /** Rounds 1 and 2, sent at 100 and 200. */
    private void sendTwoRounds() {
        confirmations.record(1, 100);
        confirmations.record(2, 200);
    }
}
