package io.bellwether.runtime;

import static io.bellwether.runtime.FakeTransport.PEER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bellwether.Election;
import io.bellwether.ElectionBuilder;
import io.bellwether.ElectionListener;
import io.bellwether.LeaderView;
import io.bellwether.Leadership;
import io.bellwether.LeadershipLostException;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.RevocationReason;
import io.bellwether.Role;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.StoredState;
import io.bellwether.inprocess.InProcessNetwork;
import io.bellwether.runtime.ScriptSpec.Ping;
import io.bellwether.runtime.ScriptSpec.Timers;
import io.bellwether.spi.StateStoreException;
import io.bellwether.spi.Transport;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RuntimeElectionTest {
    private static final NodeId SELF = NodeId.of("self");
    private static final long CEILING_SECONDS = 10;
    private static final long FAR_NANOS = TimeUnit.MINUTES.toNanos(10);

    private final List<String> log = FakeTransport.newLog();
    private final FakeTransport transport = new FakeTransport(log);
    private final FakeTransport.RecordingStore store = new FakeTransport.RecordingStore(log);
    private final ScriptSpec spec = new ScriptSpec();
    private Election election;

    @AfterEach
    void closeElection() {
        if (election != null) {
            election.close();
        }
    }

    private Election build() {
        return build(transport);
    }

    private Election build(Transport over) {
        election = Election.builder()
                .group("jobs")
                .self(SELF)
                .member(SELF, NodeAddress.parse("localhost:7101"))
                .member(PEER, NodeAddress.parse("localhost:7102"))
                .algorithm(spec)
                .stateStore(store)
                .transport(over)
                .seed(1)
                .build();
        return election;
    }

    private Election started() {
        build().start();
        return election;
    }

    private static void becomeLeader(ElectorContext ctx, long epoch, long validForNanos) {
        ctx.announce(new ElectorState(Role.LEADER, epoch, Optional.of(ctx.self())), ChangeReason.ELECTED);
        ctx.validUntil(ctx.nanoTime() + validForNanos);
    }

    private static void await(CountDownLatch latch) throws InterruptedException {
        assertThat(latch.await(CEILING_SECONDS, TimeUnit.SECONDS))
                .as("awaited event within %d s", CEILING_SECONDS)
                .isTrue();
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(CEILING_SECONDS, TimeUnit.SECONDS);
    }

    /** Records listener events as strings and counts them down. */
    private static final class Recorder implements ElectionListener {
        final List<String> events = FakeTransport.newLog();
        final CountDownLatch latch;

        Recorder(int expected) {
            latch = new CountDownLatch(expected);
        }

        @Override
        public void elected(Leadership leadership) {
            record("elected " + leadership.epoch());
        }

        @Override
        public void revoked(Leadership leadership, RevocationReason reason) {
            record("revoked " + leadership.epoch() + " " + reason);
        }

        @Override
        public void leaderChanged(Optional<LeaderView> leader) {
            record("leader " + leader.map(v -> v.leader() + "@" + v.epoch()).orElse("none"));
        }

        private void record(String event) {
            events.add(event);
            latch.countDown();
        }
    }

    @Test
    void scheduledTimerFiresOnTheElectorsLoop() throws Exception {
        CountDownLatch fired = new CountDownLatch(1);
        AtomicReference<String> thread = new AtomicReference<>();
        spec.onStart = ctx -> ctx.schedule(Timers.A, TimeUnit.MILLISECONDS.toNanos(1));
        spec.onTimer = (ctx, key) -> {
            thread.set(Thread.currentThread().getName());
            fired.countDown();
        };
        started();
        await(fired);
        assertThat(thread.get()).startsWith("bellwether-loop-");
    }

    @Test
    void cancelledTimerNeverFires() throws Exception {
        CountDownLatch laterTimerFired = new CountDownLatch(1);
        spec.onStart = ctx -> {
            ctx.schedule(Timers.A, TimeUnit.MILLISECONDS.toNanos(1));
            ctx.schedule(Timers.B, TimeUnit.MILLISECONDS.toNanos(30));
            ctx.cancel(Timers.A);
        };
        spec.onTimer = (ctx, key) -> laterTimerFired.countDown();
        started();
        await(laterTimerFired);
        assertThat(spec.events).containsExactly("start", "timer B");
    }

    @Test
    void rearmedTimerFiresOnceAtItsNewDelay() throws Exception {
        CountDownLatch laterTimerFired = new CountDownLatch(1);
        spec.onStart = ctx -> {
            ctx.schedule(Timers.A, TimeUnit.MILLISECONDS.toNanos(1));
            ctx.schedule(Timers.A, TimeUnit.MILLISECONDS.toNanos(10));
            ctx.schedule(Timers.B, TimeUnit.MILLISECONDS.toNanos(60));
        };
        spec.onTimer = (ctx, key) -> {
            if (key == Timers.B) {
                laterTimerFired.countDown();
            }
        };
        started();
        await(laterTimerFired);
        assertThat(spec.events).containsExactly("start", "timer A", "timer B");
    }

    @Test
    void pushedBackTimerFiresOnceAfterItsLatestDeadlineNotAtItsFirst() throws Exception {
        CountDownLatch pushedBackFired = new CountDownLatch(1);
        spec.onStart = ctx -> {
            // A follower's election timer: set, then pushed back (by a heartbeat) before it is due.
            ctx.schedule(Timers.A, TimeUnit.MILLISECONDS.toNanos(30));
            ctx.schedule(Timers.A, TimeUnit.MILLISECONDS.toNanos(120));
            ctx.schedule(Timers.B, TimeUnit.MILLISECONDS.toNanos(60));
        };
        spec.onTimer = (ctx, key) -> {
            if (key == Timers.A) {
                pushedBackFired.countDown();
            }
        };
        started();
        await(pushedBackFired);
        assertThat(spec.events).containsExactly("start", "timer B", "timer A");
    }

    @Test
    void timerCancelledAfterBeingPushedBackNeverFires() throws Exception {
        CountDownLatch laterTimerFired = new CountDownLatch(1);
        spec.onStart = ctx -> {
            ctx.schedule(Timers.A, TimeUnit.MILLISECONDS.toNanos(5));
            ctx.schedule(Timers.A, TimeUnit.MILLISECONDS.toNanos(20));
            ctx.cancel(Timers.A);
            ctx.schedule(Timers.B, TimeUnit.MILLISECONDS.toNanos(60));
        };
        spec.onTimer = (ctx, key) -> laterTimerFired.countDown();
        started();
        await(laterTimerFired);
        assertThat(spec.events).containsExactly("start", "timer B");
    }

    @Test
    void electorRunsOnTheTransportsThreadWhenTheTransportOffersItAndClosingLeavesThatThreadRunning() throws Exception {
        java.util.concurrent.ScheduledThreadPoolExecutor io =
                new java.util.concurrent.ScheduledThreadPoolExecutor(1, r -> new Thread(r, "transport-io"));
        try {
            FakeTransport sharing = new FakeTransport(log, Optional.of(io));
            List<String> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
            CountDownLatch fired = new CountDownLatch(1);
            spec.onStart = ctx -> {
                threads.add("start on " + Thread.currentThread().getName());
                ctx.schedule(Timers.A, TimeUnit.MILLISECONDS.toNanos(1));
            };
            spec.onTimer = (ctx, key) -> {
                threads.add("timer on " + Thread.currentThread().getName());
                fired.countDown();
            };
            build(sharing).start();
            await(fired);
            CountDownLatch handled = new CountDownLatch(1);
            sharing.run(ctx -> {
                threads.add("message on " + Thread.currentThread().getName());
                handled.countDown();
            });
            await(handled);
            assertThat(threads)
                    .containsExactly("start on transport-io", "timer on transport-io", "message on transport-io");

            election.close();
            await(election.closed());
            assertThat(spec.stops.get()).isEqualTo(1);
            assertThat(io.isShutdown()).isFalse();
            assertThat(io.submit(() -> "still running").get(CEILING_SECONDS, TimeUnit.SECONDS))
                    .isEqualTo("still running");
        } finally {
            io.shutdownNow();
        }
    }

    @Test
    void extendedLeadershipIsRevokedByTheWatchdogOnlyOnceItsLatestValidityRunsOut() throws Exception {
        // Valid long enough for the extension below to arrive first even on a slow, busy machine.
        spec.onStart = ctx -> becomeLeader(ctx, 1, TimeUnit.MILLISECONDS.toNanos(500));
        started();
        Leadership leadership = election.leadership().orElseThrow();
        CompletionStage<Long> revokedAt = leadership.revoked().thenApply(r -> System.nanoTime());
        // Extended a few times, the last time well past the first check: the first check must re-arm, not revoke.
        CountDownLatch extended = new CountDownLatch(1);
        AtomicBoolean extendedInTime = new AtomicBoolean();
        transport.run(ctx -> {
            extendedInTime.set(!leadership.revoked().toCompletableFuture().isDone());
            for (int i = 1; i <= 3; i++) {
                ctx.validUntil(ctx.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500 + 150L * i));
            }
            extended.countDown();
        });
        await(extended);
        assertThat(extendedInTime)
                .as("the extension ran while the first validity held (else the machine stalled for 480 ms)")
                .isTrue();
        long lastValidUntil = leadership.validUntilNanos();
        assertThat(await(leadership.revoked())).isEqualTo(RevocationReason.VALIDITY_EXPIRED);
        assertThat(await(revokedAt) - (lastValidUntil - ElectionBuilder.DEFAULT_REVOCATION_LEAD.toNanos()))
                .as("revoked no earlier than the latest validity minus the revocation lead")
                .isGreaterThanOrEqualTo(0);
    }

    @Test
    void persistedStateIsDurableBeforeTheNextSend() throws Exception {
        CountDownLatch sent = new CountDownLatch(1);
        spec.onStart = ctx -> {
            ctx.persist(StoredState.EMPTY.with("term", 1));
            ctx.send(PEER, new Ping("vote"));
            sent.countDown();
        };
        started();
        await(sent);
        // The store blocks (it is not in memory), so the save runs off the loop and the send waits for it.
        assertThat(transport.sent.tryAcquire(10, TimeUnit.SECONDS))
                .as("the send went out")
                .isTrue();
        assertThat(log.stream().filter(e -> !e.startsWith("register")))
                .containsExactly("save jobs {term=1}", "send peer Ping[text=vote]");
    }

    @Test
    void aLeadershipBeginsOnlyOnceTheStateItRestsOnIsDurable() throws Exception {
        store.slowDisk = new CountDownLatch(1);
        CountDownLatch decided = new CountDownLatch(1);
        spec.onStart = ctx -> {
            // As a standby taking over on a cession: a new term saved and led in one event.
            ctx.persist(StoredState.EMPTY.with("term", 2));
            becomeLeader(ctx, 2, FAR_NANOS);
            ctx.send(PEER, new Ping("heartbeat"));
            decided.countDown();
        };
        started();
        await(decided);
        // The event is over and the loop free (a probe runs), but the save has not returned: no leadership yet, and
        // nothing sent.
        await(election.probeLoop());
        assertThat(election.isLeader()).as("leads before its term is durable").isFalse();
        assertThat(election.role()).isNotEqualTo(Role.LEADER);
        assertThat(log).noneMatch(e -> e.startsWith("send "));

        store.slowDisk.countDown();

        assertThat(transport.sent.tryAcquire(CEILING_SECONDS, TimeUnit.SECONDS)).isTrue();
        await(election.probeLoop());
        assertThat(election.isLeader()).isTrue();
        assertThat(election.leadership().orElseThrow().epoch()).isEqualTo(2);
        assertThat(log.stream().filter(e -> !e.startsWith("register")))
                .containsExactly("save jobs {term=2}", "send peer Ping[text=heartbeat]");
    }

    @Test
    void aValidityGivenJustBeforeAHeldLeadershipGoesWithIt() throws Exception {
        // As bully declares itself: a counter saved, the validity set, then the leadership announced, in one event;
        // then, leading, the same again at a higher epoch.
        store.slowDisk = new CountDownLatch(1);
        CountDownLatch decided = new CountDownLatch(1);
        spec.onStart = ctx -> {
            ctx.persist(StoredState.EMPTY.with("counter", 1));
            ctx.validUntil(ctx.nanoTime() + FAR_NANOS);
            ctx.announce(new ElectorState(Role.LEADER, 1, Optional.of(ctx.self())), ChangeReason.ELECTED);
            decided.countDown();
        };
        java.util.concurrent.BlockingQueue<Leadership> elected = new java.util.concurrent.LinkedBlockingQueue<>();
        build().addListener(new io.bellwether.ElectionListener() {
            @Override
            public void elected(Leadership leadership) {
                elected.add(leadership);
            }
        });
        election.start();
        await(decided);
        store.slowDisk.countDown();
        Leadership first = elected.poll(CEILING_SECONDS, TimeUnit.SECONDS);
        assertThat(first).as("elected once the save returned").isNotNull();
        assertThat(first.epoch()).isEqualTo(1);
        assertThat(first.validUntilNanos() - System.nanoTime())
                .as("the validity given before the announcement")
                .isGreaterThan(FAR_NANOS / 2);

        store.slowDisk = new CountDownLatch(1);
        CountDownLatch again = new CountDownLatch(1);
        transport.run(ctx -> {
            ctx.persist(StoredState.EMPTY.with("counter", 2));
            ctx.validUntil(ctx.nanoTime() + FAR_NANOS);
            ctx.announce(new ElectorState(Role.LEADER, 2, Optional.of(ctx.self())), ChangeReason.ELECTED);
            again.countDown();
        });
        await(again);
        store.slowDisk.countDown();
        Leadership second = elected.poll(CEILING_SECONDS, TimeUnit.SECONDS);
        assertThat(second).as("elected again once the save returned").isNotNull();
        assertThat(second.epoch()).isEqualTo(2);
        assertThat(second.validUntilNanos() - System.nanoTime()).isGreaterThan(FAR_NANOS / 2);
        assertThat(election.isLeader()).isTrue();
    }

    @Test
    void electorStartsFromTheStoredStateAndSeesItsPersistedState() throws Exception {
        store.states.put("jobs", StoredState.EMPTY.with("term", 7));
        AtomicReference<StoredState> seen = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        spec.onStart = ctx -> seen.set(ctx.storedState());
        started();
        assertThat(seen.get().get("term", 0)).isEqualTo(7);
        transport.run(ctx -> {
            ctx.persist(ctx.storedState().with("term", 8));
            seen.set(ctx.storedState());
            done.countDown();
        });
        await(done);
        assertThat(seen.get().get("term", 0)).isEqualTo(8);
    }

    @Test
    void startFailsWithTheStoresErrorAndLeavesTheElectionDormant() {
        store.failLoads = new StateStoreException("state file /var/lib/x/jobs.state is unusable: checksum");
        build();
        assertThatThrownBy(election::start)
                .isInstanceOf(StateStoreException.class)
                .hasMessageContaining("/var/lib/x/jobs.state");
        assertThat(election.role()).isEqualTo(Role.DORMANT);
        assertThat(spec.events).isEmpty();
        assertThat(log).noneMatch(e -> e.startsWith("register"));
    }

    @Test
    void electorThatThrowsIsLoggedAndTheLoopKeepsRunning() throws Exception {
        CountDownLatch after = new CountDownLatch(1);
        started();
        transport.run(ctx -> {
            throw new IllegalStateException("elector bug (expected by this test)");
        });
        transport.run(ctx -> after.countDown());
        await(after);
    }

    @Test
    void messagesAndPeerEventsReachTheElector() throws Exception {
        CountDownLatch received = new CountDownLatch(1);
        spec.onMessage = (ctx, from, m) -> received.countDown();
        started();
        transport.listener.onPeerConnected(PEER);
        transport.listener.onMessage(PEER, new Ping("hi"));
        await(received);
        assertThat(spec.events).containsExactly("start", "connected peer", "message Ping[text=hi] from peer");
    }

    @Test
    void leadershipFollowsTheValidityTheElectorSets() throws Exception {
        Recorder recorder = new Recorder(2);
        spec.onStart = ctx -> becomeLeader(ctx, 3, FAR_NANOS);
        build().addListener(recorder);
        election.start();
        await(recorder.latch);
        Leadership leadership = election.leadership().orElseThrow();
        assertThat(leadership.epoch()).isEqualTo(3);
        assertThat(leadership.isValid()).isTrue();
        assertThat(election.isLeader()).isTrue();
        assertThat(election.role()).isEqualTo(Role.LEADER);
        assertThat(election.leader()).map(LeaderView::leader).contains(SELF);
        leadership.checkValid();

        CountDownLatch moved = new CountDownLatch(1);
        AtomicReference<Long> until = new AtomicReference<>();
        transport.run(ctx -> {
            until.set(ctx.nanoTime() + FAR_NANOS * 2);
            ctx.validUntil(until.get());
            moved.countDown();
        });
        await(moved);
        assertThat(leadership.validUntilNanos()).isEqualTo(until.get());
    }

    @Test
    void validitySetJustBeforeTheLeadershipIsAnnouncedBelongsToIt() throws Exception {
        AtomicReference<Long> until = new AtomicReference<>();
        spec.onStart = ctx -> {
            until.set(ctx.nanoTime() + FAR_NANOS);
            ctx.validUntil(until.get());
            ctx.announce(new ElectorState(Role.LEADER, 1, Optional.of(SELF)), ChangeReason.ELECTED);
        };
        started();
        assertThat(election.leadership()).map(Leadership::validUntilNanos).contains(until.get());
    }

    @Test
    void watchdogRevokesALeadershipWhoseValidityIsNotExtendedEvenWhileTheLoopIsBlocked() throws Exception {
        Recorder recorder = new Recorder(3);
        CountDownLatch loopBlocked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        spec.onStart = ctx -> becomeLeader(ctx, 1, TimeUnit.MILLISECONDS.toNanos(100));
        build().addListener(recorder);
        election.start();
        Leadership leadership = election.leadership().orElseThrow();
        transport.run(ctx -> {
            loopBlocked.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            await(loopBlocked);
            assertThat(await(leadership.revoked())).isEqualTo(RevocationReason.VALIDITY_EXPIRED);
            assertThat(leadership.isValid()).isFalse();
            assertThat(election.isLeader()).isFalse();
            assertThatThrownBy(leadership::checkValid)
                    .isInstanceOf(LeadershipLostException.class)
                    .hasMessageContaining("VALIDITY_EXPIRED");
            await(recorder.latch);
            assertThat(recorder.events).containsExactly("elected 1", "leader self@1", "revoked 1 VALIDITY_EXPIRED");
        } finally {
            release.countDown();
        }
    }

    @Test
    void listenersReceiveEventsInOrder() throws Exception {
        Recorder recorder = new Recorder(5);
        spec.onStart = ctx -> ctx.announce(new ElectorState(Role.FOLLOWER, 0, Optional.empty()), ChangeReason.STARTED);
        build().addListener(recorder);
        election.start();
        transport.run(ctx -> becomeLeader(ctx, 1, FAR_NANOS));
        transport.run(
                ctx -> ctx.announce(new ElectorState(Role.FOLLOWER, 2, Optional.of(PEER)), ChangeReason.HIGHER_EPOCH));
        transport.run(
                ctx -> ctx.announce(new ElectorState(Role.FOLLOWER, 2, Optional.empty()), ChangeReason.LEADER_TIMEOUT));
        await(recorder.latch);
        assertThat(recorder.events)
                .containsExactly(
                        "elected 1", "leader self@1", "revoked 1 HIGHER_EPOCH_SEEN", "leader peer@2", "leader none");
        assertThat(election.leadership()).isEmpty();
        assertThat(election.role()).isEqualTo(Role.FOLLOWER);
    }

    @Test
    void newListenerIsToldOfTheCurrentLeadershipAtOnce() throws Exception {
        spec.onStart = ctx -> becomeLeader(ctx, 4, FAR_NANOS);
        started();
        Recorder late = new Recorder(2);
        election.addListener(late);
        await(late.latch);
        assertThat(late.events).containsExactly("elected 4", "leader self@4");
    }

    @Test
    void runWhileLeaderRunsTheTaskAndInterruptsItOnRevocation() throws Exception {
        spec.onStart = ctx -> becomeLeader(ctx, 1, FAR_NANOS);
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        AtomicReference<Leadership> seen = new AtomicReference<>();
        build().runWhileLeader(l -> {
            seen.set(l);
            running.countDown();
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                interrupted.countDown();
                throw e;
            }
        });
        election.start();
        await(running);
        assertThat(seen.get().epoch()).isEqualTo(1);
        transport.run(
                ctx -> ctx.announce(new ElectorState(Role.FOLLOWER, 2, Optional.of(PEER)), ChangeReason.HIGHER_EPOCH));
        await(interrupted);
        assertThat(await(seen.get().revoked())).isEqualTo(RevocationReason.HIGHER_EPOCH_SEEN);
    }

    @Test
    void aLeadershipAnnouncedBeforeItsValidityReachesListenersOnlyOnceItIsValid() throws Exception {
        // The elector announces, then sets the validity, in one event. Listeners hear of the leadership after
        // the event, valid; told at the announcement, they would see it invalid (a leader task would not run).
        CountDownLatch heard = new CountDownLatch(1);
        List<Boolean> validWhenHeard = new java.util.concurrent.CopyOnWriteArrayList<>();
        spec.onStart = ctx -> {
            ctx.announce(new ElectorState(Role.LEADER, 1, Optional.of(ctx.self())), ChangeReason.ELECTED);
            try {
                heard.await(200, TimeUnit.MILLISECONDS); // a listener told now would have run by then
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ctx.validUntil(ctx.nanoTime() + FAR_NANOS);
        };
        build().addListener(new ElectionListener() {
            @Override
            public void elected(Leadership leadership) {
                validWhenHeard.add(leadership.isValid());
                heard.countDown();
            }
        });

        election.start();

        await(heard);
        assertThat(validWhenHeard).containsExactly(true);
    }

    @Test
    void closedTaskHandleStopsFutureRuns() throws Exception {
        spec.onStart = ctx -> becomeLeader(ctx, 1, FAR_NANOS);
        AtomicInteger firstRuns = new AtomicInteger();
        CountDownLatch firstRan = new CountDownLatch(1);
        AutoCloseable handle = build().runWhileLeader(l -> {
            firstRuns.incrementAndGet();
            firstRan.countDown();
        });
        election.start();
        await(firstRan);
        handle.close();
        CountDownLatch secondRan = new CountDownLatch(1);
        election.runWhileLeader(l -> {
            if (l.epoch() == 3) {
                secondRan.countDown();
            }
        });
        transport.run(
                ctx -> ctx.announce(new ElectorState(Role.FOLLOWER, 2, Optional.of(PEER)), ChangeReason.HIGHER_EPOCH));
        transport.run(ctx -> becomeLeader(ctx, 3, FAR_NANOS));
        await(secondRan);
        assertThat(firstRuns.get()).isEqualTo(1);
    }

    @Test
    void closeStopsTheElectorHandsItsCessionToTheTransportAndIsIdempotent() throws Exception {
        Recorder recorder = new Recorder(4);
        spec.onStart = ctx -> becomeLeader(ctx, 1, FAR_NANOS);
        spec.onStop = ctx -> {
            ctx.announce(new ElectorState(Role.FOLLOWER, 1, Optional.empty()), ChangeReason.STOPPED);
            ctx.send(PEER, new Ping("cession"));
        };
        build().addListener(recorder);
        election.start();
        Leadership leadership = election.leadership().orElseThrow();
        election.close();
        assertThat(log).containsSubsequence("send peer Ping[text=cession]", "unregister jobs self");
        assertThat(await(leadership.revoked())).isEqualTo(RevocationReason.RESIGNED);
        assertThat(election.role()).isEqualTo(Role.DORMANT);
        assertThat(election.isLeader()).isFalse();
        await(election.closed());

        election.close();
        assertThat(spec.stops.get()).isEqualTo(1);
        assertThat(log.stream().filter(e -> e.startsWith("unregister"))).hasSize(1);
        await(recorder.latch);
        assertThat(recorder.events).containsExactly("elected 1", "leader self@1", "revoked 1 RESIGNED", "leader none");
    }

    @Test
    void closingAnElectionThatNeverStartedJustCompletes() throws Exception {
        build().close();
        await(election.closed());
        assertThatThrownBy(election::start).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void failedPersistRevokesLeadershipStopsTheElectorAndFailsClosed() throws Exception {
        spec.onStart = ctx -> becomeLeader(ctx, 1, FAR_NANOS);
        started();
        Leadership leadership = election.leadership().orElseThrow();
        store.failSaves = new StateStoreException("state file /x/jobs.state cannot be saved: disk full");
        transport.run(ctx -> {
            try {
                ctx.persist(StoredState.EMPTY.with("term", 2));
            } finally {
                // An elector that carries on regardless must not get its messages out.
                ctx.send(PEER, new Ping("after failure"));
            }
        });
        ExecutionException failure =
                org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, () -> await(election.closed()));
        assertThat(failure.getCause()).isSameAs(store.failSaves);
        assertThat(await(leadership.revoked())).isEqualTo(RevocationReason.STATE_STORE_FAILED);
        assertThat(election.role()).isEqualTo(Role.DORMANT);
        assertThat(election.isLeader()).isFalse();
        assertThat(log).noneMatch(e -> e.contains("after failure")).contains("unregister jobs self");
        election.close(); // a no-op now
        assertThat(spec.stops.get()).isZero();
    }

    @Test
    void messagesFlowBetweenElectionsOnAnInProcessNetwork() throws Exception {
        try (InProcessNetwork network = new InProcessNetwork()) {
            NodeId a = NodeId.of("a");
            NodeId b = NodeId.of("b");
            CountDownLatch pong = new CountDownLatch(1);
            ScriptSpec specA = new ScriptSpec();
            ScriptSpec specB = new ScriptSpec();
            specA.onStart = ctx -> ctx.send(b, new Ping("ping"));
            specB.onMessage = (ctx, from, m) -> ctx.send(from, new Ping("pong"));
            specA.onMessage = (ctx, from, m) -> pong.countDown();
            // b starts first, so a's ping finds it registered.
            Election eb = inProcess(network, b, specB);
            Election ea = inProcess(network, a, specA);
            try {
                eb.start();
                ea.start();
                await(pong);
                assertThat(specA.events).contains("message Ping[text=pong] from b");
                assertThat(specB.events).contains("connected a", "message Ping[text=ping] from a");
            } finally {
                ea.close();
                eb.close();
            }
        }
    }

    private static Election inProcess(InProcessNetwork network, NodeId self, ScriptSpec spec) {
        return Election.builder()
                .group("jobs")
                .self(self)
                .member(NodeId.of("a"), NodeAddress.parse("localhost:7101"))
                .member(NodeId.of("b"), NodeAddress.parse("localhost:7102"))
                .algorithm(spec)
                .stateStore(new io.bellwether.state.InMemoryStateStore())
                .transport(network.transport(self))
                .revocationLead(Duration.ofMillis(5))
                .build();
    }
}
