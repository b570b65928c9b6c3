package io.bellwether.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.LeaderView;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.ElectorState;
import io.bellwether.spi.Transport;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** An Error on any of an election's threads reaches the process-wide {@link FatalErrors} handler. */
class FatalErrorsTest {
    private static final NodeId SELF = NodeId.of("self");
    private static final long CEILING_SECONDS = 20;

    private final List<String> log = FakeTransport.newLog();
    private final ScriptSpec spec = new ScriptSpec();
    private final BlockingQueue<String> fatal = new LinkedBlockingQueue<>();
    private Election election;

    @BeforeEach
    void recordFatalErrors() {
        FatalErrors.handler((thread, error) -> fatal.add(thread.getName() + ": " + error));
    }

    @AfterEach
    void restore() {
        FatalErrors.handler(FatalErrors.LOG_AND_RETHROW);
        if (election != null) {
            election.close();
        }
    }

    private Election started(Transport transport) {
        election = Election.builder()
                .group("jobs")
                .self(SELF)
                .member(SELF, NodeAddress.parse("localhost:7101"))
                .member(FakeTransport.PEER, NodeAddress.parse("localhost:7102"))
                .algorithm(spec)
                .stateStore(new FakeTransport.RecordingStore(log))
                .transport(transport)
                .seed(1)
                .build();
        election.start();
        return election;
    }

    private String nextFatal() throws InterruptedException {
        String seen = fatal.poll(CEILING_SECONDS, TimeUnit.SECONDS);
        assertThat(seen)
                .as("a fatal error reported within %d s", CEILING_SECONDS)
                .isNotNull();
        return seen;
    }

    @Test
    void anErrorHandlingAnElectorEventOnTheElectionsOwnLoopReachesTheHandler() throws Exception {
        FakeTransport transport = new FakeTransport(log);
        started(transport);

        transport.run(ctx -> {
            throw new OutOfMemoryError("simulated: Java heap space");
        });

        assertThat(nextFatal()).startsWith("bellwether-loop-").contains("OutOfMemoryError: simulated: Java heap space");
    }

    @Test
    void anErrorFromATimerOnTheTransportsSharedLoopReachesTheHandlerThoughTheExecutorWouldSwallowIt() throws Exception {
        // A scheduled executor keeps what a task threw in the task's future, as a Netty event loop logs it and
        // carries on: without the handler nobody would hear of the error.
        ScheduledThreadPoolExecutor io = new ScheduledThreadPoolExecutor(1, r -> new Thread(r, "transport-io"));
        try {
            spec.onStart = ctx -> ctx.schedule(ScriptSpec.Timers.A, TimeUnit.MILLISECONDS.toNanos(1));
            spec.onTimer = (ctx, key) -> {
                throw new StackOverflowError("simulated");
            };
            started(new FakeTransport(log, Optional.of(io)));

            assertThat(nextFatal()).isEqualTo("transport-io: java.lang.StackOverflowError: simulated");
            assertThat(io.submit(() -> "alive").get(CEILING_SECONDS, TimeUnit.SECONDS))
                    .as("the shared executor itself is left running")
                    .isEqualTo("alive");
        } finally {
            election.close();
            election = null;
            io.shutdownNow();
        }
    }

    @Test
    void anErrorThrownByAListenerReachesTheHandler() throws Exception {
        FakeTransport transport = new FakeTransport(log);
        started(transport);
        election.addListener(new ElectionListener() {
            @Override
            public void leaderChanged(Optional<LeaderView> leader) {
                // Only for the change this test makes: closing the election reports the leader gone too, on the
                // notifier, possibly after the next test has put its own handler in place.
                if (leader.isPresent()) {
                    throw new AssertionError("listener broke");
                }
            }
        });

        transport.run(ctx -> ctx.announce(
                new ElectorState(Role.FOLLOWER, 3, Optional.of(FakeTransport.PEER)), ChangeReason.LEADER_DISCOVERED));

        assertThat(nextFatal()).startsWith("bellwether-events-").contains("listener broke");
    }

    @Test
    void aRuntimeExceptionIsNotFatal() throws Exception {
        FakeTransport transport = new FakeTransport(log);
        started(transport);

        transport.run(ctx -> {
            throw new IllegalStateException("an elector bug: the event is dropped, the loop goes on");
        });

        election.probeLoop().toCompletableFuture().get(CEILING_SECONDS, TimeUnit.SECONDS);
        assertThat(fatal).isEmpty();
    }

    @Test
    void theLoopProbeCompletesWhileTheElectionRunsAndFailsOnceItIsClosed() throws Exception {
        started(new FakeTransport(log));

        election.probeLoop().toCompletableFuture().get(CEILING_SECONDS, TimeUnit.SECONDS);
        election.close();

        assertThatThrownBy(() -> election.probeLoop().toCompletableFuture().get(CEILING_SECONDS, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasMessageContaining("closed");
    }
}
