package io.bellwether.server.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.server.node.ObservedLeaseStore.State;
import io.bellwether.spi.LeaseRecord;
import io.bellwether.spi.LeaseStore;
import io.bellwether.spi.LeaseStoreException;
import io.bellwether.spi.LeaseStoreException.Problem;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

class ObservedLeaseStoreTest {
    /** Answers each call with the next scripted stage. */
    private static final class Scripted implements LeaseStore {
        final Deque<CompletableFuture<?>> answers = new ArrayDeque<>();
        RuntimeException thrown;

        @SuppressWarnings("unchecked")
        private <T> CompletionStage<T> next() {
            if (thrown != null) {
                throw thrown;
            }
            return (CompletionStage<T>) answers.removeFirst();
        }

        @Override
        public String describe() {
            return "scripted";
        }

        @Override
        public CompletionStage<LeaseRecord> acquireOrRenew(String group, String holder, long token, Duration d) {
            return next();
        }

        @Override
        public CompletionStage<Boolean> release(String group, String holder, long token) {
            return next();
        }

        @Override
        public CompletionStage<Optional<LeaseRecord>> read(String group) {
            return next();
        }

        @Override
        public void close() {}
    }

    private final Scripted store = new Scripted();
    private final ObservedLeaseStore observed = new ObservedLeaseStore(store, "n1", Duration.ofSeconds(30));

    private static LeaseStoreException failure(Problem problem) {
        return new LeaseStoreException("scripted", problem, problem + " happened: do something", null);
    }

    @Test
    void theStateIsUnknownUntilACallEndsThenFollowsTheLastCallThatEnded() {
        assertThat(observed.health().state()).isEqualTo(State.UNKNOWN);

        store.answers.add(CompletableFuture.failedFuture(failure(Problem.UNREACHABLE)));
        observed.read("g");
        assertThat(observed.health().state()).isEqualTo(State.UNREACHABLE);
        assertThat(observed.health().problem()).contains(Problem.UNREACHABLE);
        assertThat(observed.health().lastError()).contains("lease store scripted: UNREACHABLE happened: do something");

        store.answers.add(CompletableFuture.completedFuture(Optional.empty()));
        observed.read("g");
        assertThat(observed.health().state()).isEqualTo(State.REACHABLE);
        assertThat(observed.health().problem()).isEmpty();
        assertThat(observed.health().lastError())
                .as("kept after recovery")
                .contains("lease store scripted: UNREACHABLE happened: do something");
    }

    @Test
    void aStageCompletedLaterIsRecordedWhenItEnds() {
        CompletableFuture<Boolean> pending = new CompletableFuture<>();
        store.answers.add(pending);
        observed.release("g", "n1-x", 3);
        assertThat(observed.health().state()).isEqualTo(State.UNKNOWN);

        pending.completeExceptionally(failure(Problem.CREDENTIALS));
        assertThat(observed.health().problem()).contains(Problem.CREDENTIALS);
    }

    @Test
    void failuresOfAClosedStoreAreNotRecorded() {
        store.answers.add(CompletableFuture.failedFuture(failure(Problem.CLOSED)));
        observed.read("g");
        assertThat(observed.health().state()).isEqualTo(State.UNKNOWN);
    }

    @Test
    void aCallThatThrowsIsRecordedAsAFailureAndRethrown() {
        store.thrown = new IllegalArgumentException("group must be 1 to 200 characters");

        assertThatThrownBy(() -> observed.read("")).isSameAs(store.thrown);
        assertThat(observed.health().problem()).contains(Problem.FAILED);
        assertThat(observed.health().lastError())
                .hasValueSatisfying(
                        m -> assertThat(m).contains("scripted").contains("group must be 1 to 200 characters"));
    }

    @Test
    void aWaiterForTheNextReleaseIsToldWhenThatReleaseEndsHoweverItEnds() {
        CompletableFuture<Void> next = observed.nextReleaseEnded();
        store.answers.add(CompletableFuture.completedFuture(Optional.empty()));
        observed.read("g");
        assertThat(next).isNotDone();

        CompletableFuture<Boolean> release = new CompletableFuture<>();
        store.answers.add(release);
        observed.release("g", "n1-x", 1);
        assertThat(next).isNotDone();
        release.completeExceptionally(failure(Problem.TIMEOUT));
        assertThat(next).isDone();
    }

    @Test
    void anAnswerWithATokenOutOfTheCounterRangeIsAFailureNamedAndCountedAndTheNextGoodAnswerRecovers() {
        store.answers.add(CompletableFuture.completedFuture(new LeaseRecord("n2", Long.MAX_VALUE, 10_000, 5_000)));
        observed.acquireOrRenew("g", "n1", 0, Duration.ofSeconds(10));
        assertThat(observed.health().state()).isEqualTo(State.UNREACHABLE);
        assertThat(observed.health().problem()).contains(Problem.FAILED);
        assertThat(observed.health().lastError().orElseThrow())
                .contains("token " + Long.MAX_VALUE)
                .contains("holder n2")
                .contains("out of range");
        assertThat(observed.outOfRangeTokens()).isEqualTo(1);

        store.answers.add(CompletableFuture.completedFuture(Optional.of(new LeaseRecord("n2", -1, 10_000, 5_000))));
        observed.read("g");
        assertThat(observed.outOfRangeTokens()).as("a negative token read back").isEqualTo(2);

        store.answers.add(CompletableFuture.completedFuture(new LeaseRecord("n1", 7, 10_000, 5_000)));
        observed.acquireOrRenew("g", "n1", 0, Duration.ofSeconds(10));
        assertThat(observed.health().state()).isEqualTo(State.REACHABLE);
        assertThat(observed.outOfRangeTokens()).isEqualTo(2);
    }
}
