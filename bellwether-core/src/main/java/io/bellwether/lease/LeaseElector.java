package io.bellwether.lease;

import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.Counters;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.StoreReply;
import io.bellwether.elector.TimerKey;
import io.bellwether.spi.LeaseRecord;
import io.bellwether.spi.LeaseStore;
import io.bellwether.spi.LeaseStoreException;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lease elector: a pure state machine over a {@link LeaseStore} reached through {@link
 * ElectorContext#storeRequest}. It sends no peer messages; the store is the only channel.
 *
 * <p>Life of a member:
 *
 * <ol>
 *   <li><b>Start</b>: it reads the lease. If the store shows a lease held under its own holder id, that lease
 *       belongs to an earlier incarnation of this member (which is gone); it is released, never adopted, so a
 *       token is never led twice.
 *   <li><b>Follower</b>: every {@code retry} (±20%) it calls acquire-or-renew with token 0 (no lease has it):
 *       the poll either acquires an expired or free lease, or reports who holds it, with which token, for how
 *       long. Followers announce that holder as leader (the observer view) and drop it when its lease should
 *       have run out without news. Where the store pushes releases, a release wakes them at once.
 *   <li><b>Leader</b>: when a reply shows the lease held by this member with a token it never stepped down
 *       from, it leads at epoch = that token, valid until {@code sendTime + min(duration, remaining) × (1 −
 *       max-clock-drift) − validity-margin}, where {@code sendTime} is this clock's reading when that request
 *       was sent and {@code remaining} what the store said was left: the store applied the request after it
 *       was sent, so the lease outlives this instant on any clock that runs at most {@code max-clock-drift}
 *       fast. Using {@code remaining} rather than {@code duration} makes this safe even when the reply shows a
 *       lease that an earlier request (whose reply was lost) acquired. It renews every {@code renew-interval};
 *       each success moves the validity forward from that renewal's send time.
 *   <li><b>Step down</b>: if no renewal has succeeded by {@code lastSuccessfulSend + renew-deadline} (or by the
 *       validity's end, if sooner), it announces FOLLOWER with {@link ChangeReason#LEASE_NOT_RENEWED} first and
 *       only then releases the lease, best effort. Store failures and timeouts arrive as {@link
 *       LeaseReply.Failed} replies; no store trouble can keep it leading. A lease later found held under its own
 *       id with a token it stepped down from is released again, never led again.
 *   <li><b>Priorities</b>: every acquire-or-renew carries {@code priority}; a poll that finds the lease held by a
 *       lower priority leaves a claim in the store. A leader whose renewal comes back with a live claim above its
 *       own priority steps down ({@link ChangeReason#TRANSFERRED}), releases the lease and reads instead of
 *       contending for {@code duration + retry}, so that the claimant takes it.
 *   <li><b>Stop</b>: a leader announces DORMANT (revocation) first, then releases the lease.
 * </ol>
 *
 * At most one acquire-or-renew is outstanding at a time, so replies come back in the order the store applied
 * them and the epoch a member announces never decreases within one incarnation.
 */
public final class LeaseElector implements Elector {
    private static final Logger log = LoggerFactory.getLogger(LeaseElector.class);
    /** How long a release long-poll stays outstanding before it is renewed. */
    static final long WATCH_PERIOD_NANOS = 30_000_000_000L;

    enum Timer implements TimerKey {
        /** The next poll (follower) or renewal (leader). */
        ATTEMPT,
        /** The leader's renew deadline. */
        STEP_DOWN,
        /** The followed holder's lease should have run out. */
        LEADER_EXPIRY,
        /** Retry the start-up read. */
        READ,
        /** Re-arm the release watch after a failure. */
        WATCH
    }

    private record Attempt(long id, long sendNanos, long token) {}

    private final LeaseConfig cfg;
    private final ElectorContext ctx;
    private final String holder;
    private final long durationNanos;
    private final long renewIntervalNanos;
    private final long renewDeadlineNanos;
    private final long retryNanos;
    private final long requestTimeoutNanos;

    private boolean running;
    private boolean contending;
    private ElectorState announced = ElectorState.DORMANT;
    private Role role = Role.DORMANT;
    private long epoch;
    private Optional<NodeId> leader = Optional.empty();
    private long nextId = 1;

    private Attempt attempt;
    private long readId = -1;
    private long watchId = -1;
    private boolean wakeAfterReply;
    /** The token of a lease of ours to renew at the next attempt although not leading (too short to lead). */
    private long adoptToken;

    private long leaseToken;
    private long validUntil;
    private long lastSuccessfulSend;
    private long stepDownAt;
    private long outOfRangeTokens;

    /** The highest token this member stepped down from (or found orphaned): never led again. */
    private long relinquished;

    /** A member that resigned neither acquires nor leads before this instant ({@link #resign}); not persisted. */
    private long resignedUntil = Long.MIN_VALUE;
    /** The read a resigned member polls with instead of acquire-or-renew, to know the holder; -1 when none. */
    private long observeId = -1;

    LeaseElector(LeaseConfig cfg, ElectorContext ctx) {
        this.cfg = cfg;
        this.ctx = ctx;
        this.holder = cfg.holderId(ctx.self());
        this.durationNanos = cfg.duration().toNanos();
        this.renewIntervalNanos = cfg.renewInterval().toNanos();
        this.renewDeadlineNanos = cfg.renewDeadline().toNanos();
        this.retryNanos = cfg.retry().toNanos();
        this.requestTimeoutNanos = cfg.requestTimeout().toNanos();
    }

    /** This member's holder id in the store. */
    public String holder() {
        return holder;
    }

    @Override
    public void start() {
        if (running) {
            return;
        }
        running = true;
        role = Role.FOLLOWER;
        announce(ChangeReason.STARTED);
        sendRead();
    }

    @Override
    public void onMessage(NodeId from, ElectorMessage message) {
        // The lease elector has no peer protocol; anything that arrives is ignored.
    }

    @Override
    public void onTimer(TimerKey key) {
        if (!running || !(key instanceof Timer t)) {
            return;
        }
        checkDeadline();
        switch (t) {
            case ATTEMPT -> attempt();
            case STEP_DOWN -> {} // checkDeadline did it, or the deadline moved
            case LEADER_EXPIRY -> {
                if (role == Role.FOLLOWER && leader.isPresent()) {
                    leader = Optional.empty();
                    announce(ChangeReason.LEADER_TIMEOUT);
                }
            }
            case READ -> sendRead();
            case WATCH -> watch();
        }
    }

    @Override
    public void onStoreReply(StoreReply reply) {
        if (!running || !(reply instanceof LeaseReply r)) {
            return;
        }
        checkDeadline();
        r = withTokenInRange(r);
        if (r instanceof LeaseReply.Lease l) {
            onLease(l);
        } else if (r instanceof LeaseReply.Current c) {
            onCurrent(c);
        } else if (r instanceof LeaseReply.ReleasedNotification n) {
            onReleased(n);
        } else if (r instanceof LeaseReply.Failed f) {
            onFailed(f);
        } else if (r instanceof LeaseReply.Released rel) {
            log.debug("{}: release {} {}", holder, rel.requestId(), rel.released() ? "done" : "changed nothing");
        }
    }

    /**
     * A token read back from the store must be in {@link Counters}' range: a member adopts it as its epoch and the
     * next acquisition increments it, so an extreme one (a corrupted row or key) would end every election. Such a
     * reply is handled as the store error it is, and counted ({@link #outOfRangeTokens()}).
     */
    private LeaseReply withTokenInRange(LeaseReply r) {
        LeaseRecord rec;
        LeaseRequest request;
        if (r instanceof LeaseReply.Lease l) {
            rec = l.record();
            request = new LeaseRequest.AcquireOrRenew(l.requestId(), holder, 0, cfg.duration(), 0);
        } else if (r instanceof LeaseReply.Current c && c.record().isPresent()) {
            rec = c.record().get();
            request = new LeaseRequest.Read(c.requestId(), 0);
        } else {
            return r;
        }
        if (Counters.inRange(rec.token())) {
            return r;
        }
        outOfRangeTokens++;
        String problem = "the lease's token " + rec.token() + " (holder " + rec.holder() + ") is out of range: "
                + Counters.allowed();
        log.warn("{}: {}; treating the reply as a store error", holder, problem);
        return request.failed(
                new LeaseStoreException(cfg.store().describe(), LeaseStoreException.Problem.FAILED, problem, null));
    }

    /** How many store replies carried a token out of {@link Counters}' range (each handled as a store error). */
    public long outOfRangeTokens() {
        return outOfRangeTokens;
    }

    @Override
    public void stop() {
        if (!running) {
            return;
        }
        boolean led = role == Role.LEADER;
        long token = leaseToken;
        // Revoke first (the announcement), then hand the lease back: by the time a contender can take it, this
        // member has stopped acting as leader.
        role = Role.DORMANT;
        leader = Optional.empty();
        announce(ChangeReason.STOPPED);
        if (led) {
            sendRelease(token);
        }
        for (Timer t : Timer.values()) {
            ctx.cancel(t);
        }
        running = false;
    }

    /**
     * Gives up the lease and stays a contender that does not contend: a leader announces FOLLOWER ({@link
     * ChangeReason#RESIGNED}) first and only then releases the lease, so a waiting contender takes it at once (woken
     * by the store's release notification where the store pushes, else at its next poll). Until {@code
     * holdOffNanos} have passed this member polls with a plain read instead of acquire-or-renew, so it keeps
     * knowing the holder but never takes the lease; a lease of its own that an earlier request acquires meanwhile
     * is released, not led.
     */
    @Override
    public void resign(long holdOffNanos) {
        if (!running) {
            return;
        }
        resignedUntil = ctx.nanoTime() + holdOffNanos;
        adoptToken = 0;
        if (role == Role.LEADER) {
            stepDown(ChangeReason.RESIGNED, true);
        }
    }

    private boolean holdingOff(long now) {
        return now < resignedUntil;
    }

    @Override
    public ElectorState state() {
        return announced;
    }

    // ---------------------------------------------------------------- start-up read

    private void sendRead() {
        readId = request(id -> new LeaseRequest.Read(id, requestTimeoutNanos));
    }

    private void onCurrent(LeaseReply.Current c) {
        if (c.requestId() == observeId) {
            observeId = -1;
            long now = ctx.nanoTime();
            if (role != Role.LEADER) {
                c.record().ifPresentOrElse(rec -> observe(rec, now), () -> leader = Optional.empty());
                announce(ChangeReason.LEADER_DISCOVERED);
            }
            return;
        }
        if (c.requestId() != readId) {
            return;
        }
        readId = -1;
        long now = ctx.nanoTime();
        c.record().ifPresent(rec -> {
            epoch = Math.max(epoch, rec.token());
            if (!rec.expired() && rec.holder().equals(holder)) {
                // An earlier incarnation of this member held it; that one is gone and this one must not lead
                // under its token. Releasing it lets the group elect at once instead of waiting for expiry.
                log.debug("{}: releasing token {} left by an earlier incarnation", holder, rec.token());
                relinquished = Math.max(relinquished, rec.token());
                sendRelease(rec.token());
            } else {
                observe(rec, now);
            }
        });
        announce(ChangeReason.LEADER_DISCOVERED);
        contending = true;
        watch();
        attempt();
    }

    // ---------------------------------------------------------------- polls and renewals

    private void attempt() {
        if (!contending || attempt != null) {
            return;
        }
        long now = ctx.nanoTime();
        long token;
        long timeout;
        if (role == Role.LEADER) {
            token = leaseToken;
            // Capped so that no renewal outlives the leadership it would extend.
            timeout = Math.min(requestTimeoutNanos, stepDownAt - now);
            if (timeout <= 0) {
                stepDown(ChangeReason.LEASE_NOT_RENEWED, true);
                return;
            }
        } else if (holdingOff(now)) {
            // Resigned: watch the holder without contending, and contend again as soon as the hold-off is over.
            if (observeId < 0) {
                observeId = request(id -> new LeaseRequest.Read(id, requestTimeoutNanos));
            }
            scheduleAttempt(Math.min(jittered(retryNanos), resignedUntil - now));
            return;
        } else {
            token = adoptToken;
            timeout = requestTimeoutNanos;
        }
        adoptToken = 0;
        attempt = new Attempt(nextId++, now, token);
        ctx.storeRequest(
                new LeaseRequest.AcquireOrRenew(attempt.id(), holder, token, cfg.duration(), timeout, cfg.priority()));
    }

    private void onLease(LeaseReply.Lease reply) {
        Attempt a = attempt;
        if (a == null || reply.requestId() != a.id()) {
            return;
        }
        attempt = null;
        long now = ctx.nanoTime();
        checkDeadline();
        LeaseRecord rec = reply.record();
        boolean mine = !rec.expired() && rec.holder().equals(holder);
        if (mine && role != Role.LEADER && holdingOff(now)) {
            // Acquired by a request sent before this member resigned: it does not lead during its hold-off.
            relinquished = Math.max(relinquished, rec.token());
        }
        if (mine && rec.token() <= relinquished) {
            // Renewed after giving up (the renewal's reply came too late), or left by an earlier incarnation.
            sendRelease(rec.token());
            scheduleAttempt(jittered(retryNanos));
            return;
        }
        if (mine && rec.claimedAbove(cfg.priority())) {
            yieldTo(rec, now);
            return;
        }
        if (mine) {
            long remaining = Math.min(durationNanos, rec.remainingMillis() * 1_000_000L);
            long valid = a.sendNanos()
                    + LeaseConfig.validityNanos(
                            remaining, cfg.maxClockDrift(), cfg.validityMargin().toNanos());
            if (valid <= now) {
                // Ours, but too little of it is known to be left to act on; renew it before leading.
                if (role != Role.LEADER) {
                    adoptToken = rec.token();
                }
                scheduleAttempt(0);
                return;
            }
            lead(rec.token(), a.sendNanos(), valid, now);
            return;
        }
        epoch = Math.max(epoch, rec.token());
        if (role == Role.LEADER) {
            // The lease is gone: it expired on the store and someone else took it (or it is free).
            stepDown(ChangeReason.LEASE_NOT_RENEWED, false);
        }
        observe(rec, now);
        announce(ChangeReason.LEADER_DISCOVERED);
        if (wakeAfterReply) {
            wakeAfterReply = false;
            scheduleAttempt(0);
        } else {
            scheduleAttempt(jittered(retryNanos));
        }
    }

    /**
     * A contender of higher priority claims the lease: step down (if leading), release it, and hold off for one
     * duration plus one retry, so that the claimant (woken by the release where the store pushes, else at its next
     * poll) takes it rather than this member. A claim runs out one duration after the claimant's last poll, so a
     * claimant that died can displace a holder at most once.
     */
    private void yieldTo(LeaseRecord rec, long now) {
        log.debug(
                "{}: yielding token {} to a contender of priority {} (own {})",
                holder,
                rec.token(),
                rec.claimPriority(),
                cfg.priority());
        resignedUntil = Math.max(resignedUntil, now + durationNanos + retryNanos);
        adoptToken = 0;
        if (role == Role.LEADER) {
            if (rec.token() != leaseToken) {
                relinquished = Math.max(relinquished, rec.token());
                sendRelease(rec.token());
            }
            stepDown(ChangeReason.TRANSFERRED, true);
        } else {
            relinquished = Math.max(relinquished, rec.token());
            sendRelease(rec.token());
            scheduleAttempt(jittered(retryNanos));
        }
    }

    private void lead(long token, long sendNanos, long valid, long now) {
        boolean fresh = role != Role.LEADER || token != leaseToken;
        if (fresh) {
            if (role == Role.LEADER) {
                relinquished = Math.max(relinquished, leaseToken);
            }
            role = Role.LEADER;
            leaseToken = token;
            epoch = Math.max(epoch, token);
            leader = Optional.of(ctx.self());
            validUntil = valid;
            lastSuccessfulSend = sendNanos;
            ctx.cancel(Timer.LEADER_EXPIRY);
        } else {
            validUntil = Math.max(validUntil, valid);
            lastSuccessfulSend = Math.max(lastSuccessfulSend, sendNanos);
        }
        // Before the validity ends, whatever the configuration: a lease reported with little left may end
        // before the renew deadline.
        stepDownAt = Math.min(lastSuccessfulSend + renewDeadlineNanos, validUntil);
        ctx.validUntil(validUntil);
        if (fresh) {
            announce(ChangeReason.ELECTED);
        }
        ctx.schedule(Timer.STEP_DOWN, stepDownAt - now);
        // Normally every renew-interval; sooner when the deadline is near, so that at least two tries fit.
        long renewAt = lastSuccessfulSend + Math.min(renewIntervalNanos, (stepDownAt - lastSuccessfulSend) / 2);
        scheduleAttempt(Math.max(0, renewAt - now));
    }

    /**
     * Steps down if the renew deadline has passed. Called first on every event, so that a member that was not
     * scheduled in time (a paused process) gives up before it handles anything else.
     *
     * @return whether it stepped down
     */
    private boolean checkDeadline() {
        if (role == Role.LEADER && ctx.nanoTime() >= stepDownAt) {
            stepDown(ChangeReason.LEASE_NOT_RENEWED, true);
            return true;
        }
        return false;
    }

    private void stepDown(ChangeReason reason, boolean release) {
        long token = leaseToken;
        relinquished = Math.max(relinquished, token);
        role = Role.FOLLOWER;
        leader = Optional.empty();
        ctx.cancel(Timer.STEP_DOWN);
        log.debug("{}: stepping down from token {} ({})", holder, token, reason);
        // Announce (revoke) first; the release, if the store is reachable at all, only helps the successor.
        announce(reason);
        if (release) {
            sendRelease(token);
        }
        if (attempt == null) {
            scheduleAttempt(jittered(retryNanos));
        }
    }

    private void onFailed(LeaseReply.Failed f) {
        long id = f.requestId();
        LeaseRequest req = f.request();
        if (req instanceof LeaseRequest.AcquireOrRenew) {
            if (attempt == null || attempt.id() != id) {
                return;
            }
            attempt = null;
            log.debug("{}: acquire-or-renew failed: {}", holder, f.cause().toString());
            checkDeadline();
            if (role == Role.LEADER) {
                scheduleAttempt(Math.min(retryNanos, renewIntervalNanos) / 2);
            } else if (wakeAfterReply) {
                wakeAfterReply = false;
                scheduleAttempt(0);
            } else {
                scheduleAttempt(jittered(retryNanos));
            }
        } else if (req instanceof LeaseRequest.Read) {
            if (id == observeId) {
                observeId = -1; // the next attempt reads again
            } else if (id == readId) {
                readId = -1;
                log.debug("{}: reading the lease failed: {}", holder, f.cause().toString());
                ctx.schedule(Timer.READ, jittered(retryNanos));
            }
        } else if (req instanceof LeaseRequest.AwaitRelease) {
            if (id == watchId) {
                watchId = -1;
                // A quiet long-poll ends in a timeout: ask again at once. Anything else waits a poll period.
                ctx.schedule(Timer.WATCH, f.cause() instanceof TimeoutException ? 0 : jittered(retryNanos));
            }
        } else {
            log.debug("{}: release failed: {}", holder, f.cause().toString());
        }
    }

    // ---------------------------------------------------------------- releases and the watch

    private void sendRelease(long token) {
        request(id -> new LeaseRequest.Release(id, holder, token, requestTimeoutNanos));
    }

    private void watch() {
        if (!cfg.pushesReleases() || watchId >= 0 || !contending) {
            return;
        }
        watchId = request(id -> new LeaseRequest.AwaitRelease(id, WATCH_PERIOD_NANOS));
    }

    /** Sends the store request {@code withId} makes for the next request id; returns that id. */
    private long request(LongFunction<LeaseRequest> withId) {
        long id = nextId++;
        ctx.storeRequest(withId.apply(id));
        return id;
    }

    private void onReleased(LeaseReply.ReleasedNotification n) {
        if (n.requestId() != watchId) {
            return;
        }
        watchId = -1;
        watch();
        if (role == Role.FOLLOWER) {
            if (attempt == null) {
                ctx.cancel(Timer.ATTEMPT);
                attempt();
            } else {
                // The poll in flight may have been applied before the release.
                wakeAfterReply = true;
            }
        }
    }

    // ---------------------------------------------------------------- observer view

    /** Records who holds the lease, as a follower learns it from a reply received at {@code now}. */
    private void observe(LeaseRecord rec, long now) {
        epoch = Math.max(epoch, rec.token());
        if (rec.expired() || rec.holder().equals(holder)) {
            leader = Optional.empty();
            ctx.cancel(Timer.LEADER_EXPIRY);
            return;
        }
        leader = Optional.of(nodeOf(rec.holder()));
        ctx.schedule(Timer.LEADER_EXPIRY, rec.remainingMillis() * 1_000_000L);
    }

    /** The node id in a holder id {@code <node id>-<suffix>}; the whole id, made valid, if it has no such form. */
    static NodeId nodeOf(String holderId) {
        int dash = holderId.lastIndexOf('-');
        if (dash > 0) {
            try {
                return NodeId.of(holderId.substring(0, dash));
            } catch (IllegalArgumentException e) {
                // fall through: not one of ours
            }
        }
        String cleaned = holderId.replaceAll("[^A-Za-z0-9._-]", "_");
        if (cleaned.isEmpty()) {
            cleaned = "_";
        }
        return NodeId.of(cleaned.length() > 64 ? cleaned.substring(0, 64) : cleaned);
    }

    // ---------------------------------------------------------------- helpers

    private void scheduleAttempt(long delayNanos) {
        ctx.schedule(Timer.ATTEMPT, Math.max(0, delayNanos));
    }

    private long jittered(long nanos) {
        return (long) (nanos * (0.8 + 0.4 * ctx.random().nextDouble()));
    }

    private void announce(ChangeReason reason) {
        ElectorState next = new ElectorState(role, epoch, leader);
        if (next.equals(announced)) {
            return;
        }
        announced = next;
        ctx.announce(next, reason);
    }
}
