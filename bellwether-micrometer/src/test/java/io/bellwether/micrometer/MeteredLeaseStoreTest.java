package io.bellwether.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.spi.LeaseRecord;
import io.bellwether.spi.LeaseStore;
import io.bellwether.spi.LeaseStoreException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class MeteredLeaseStoreTest {
    /** Answers each call with the future the test put in {@link #next}. */
    private static final class ScriptedStore implements LeaseStore {
        CompletableFuture<?> next;

        @Override
        public String describe() {
            return "scripted";
        }

        @SuppressWarnings("unchecked")
        private <T> CompletionStage<T> answer() {
            return (CompletionStage<T>) next;
        }

        @Override
        public CompletionStage<LeaseRecord> acquireOrRenew(String group, String holder, long token, Duration d) {
            return answer();
        }

        @Override
        public CompletionStage<Boolean> release(String group, String holder, long token) {
            return answer();
        }

        @Override
        public CompletionStage<Optional<LeaseRecord>> read(String group) {
            return answer();
        }

        @Override
        public void close() {}
    }

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final ScriptedStore scripted = new ScriptedStore();
    private final MeteredLeaseStore store = new MeteredLeaseStore(scripted, registry, Tags.of("group", "g"));

    private long roundTrips(String operation) {
        return registry.get(MeteredLeaseStore.ROUND_TRIP)
                .tags("operation", operation, "group", "g")
                .timer()
                .count();
    }

    private Counter errors(String operation, String problem) {
        return registry.find(MeteredLeaseStore.ERRORS)
                .tags("operation", operation, "problem", problem)
                .counter();
    }

    @Test
    void eachAnsweredCallIsTimedUnderItsOperationWhenItsAnswerArrives() throws Exception {
        CompletableFuture<LeaseRecord> pending = new CompletableFuture<>();
        scripted.next = pending;
        CompletionStage<LeaseRecord> call = store.acquireOrRenew("g", "a", 1, Duration.ofSeconds(5));
        assertThat(roundTrips("acquire-or-renew")).isZero();

        pending.complete(new LeaseRecord("a", 1, 0, 0));

        assertThat(call.toCompletableFuture().get().holder()).isEqualTo("a");
        assertThat(roundTrips("acquire-or-renew")).isEqualTo(1);
        assertThat(roundTrips("read")).isZero();
        assertThat(roundTrips("release")).isZero();
        assertThat(registry.find(MeteredLeaseStore.ERRORS).counters()).isEmpty();
    }

    @Test
    void aFailedCallIsTimedAndCountedByItsProblem() {
        scripted.next = CompletableFuture.failedFuture(
                new LeaseStoreException("scripted", LeaseStoreException.Problem.TIMEOUT, "slow", null));
        assertThatThrownBy(() -> store.read("g").toCompletableFuture().get()).isInstanceOf(ExecutionException.class);
        scripted.next = CompletableFuture.failedFuture(new IllegalStateException("boom"));
        assertThatThrownBy(
                        () -> store.release("g", "a", 1).toCompletableFuture().get())
                .isInstanceOf(ExecutionException.class);

        assertThat(roundTrips("read")).isEqualTo(1);
        assertThat(errors("read", "TIMEOUT").count()).isEqualTo(1.0);
        assertThat(errors("release", "FAILED").count()).isEqualTo(1.0);
    }

    @Test
    void callsFailedBecauseTheStoreClosedAreNotErrors() {
        scripted.next = CompletableFuture.failedFuture(
                new LeaseStoreException("scripted", LeaseStoreException.Problem.CLOSED, "closed", null));
        assertThatThrownBy(() -> store.read("g").toCompletableFuture().get()).isInstanceOf(ExecutionException.class);

        assertThat(registry.find(MeteredLeaseStore.ERRORS).counters()).isEmpty();
    }
}
