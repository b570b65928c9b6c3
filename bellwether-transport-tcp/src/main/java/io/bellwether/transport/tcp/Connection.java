package io.bellwether.transport.tcp;

import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.transport.tcp.Frames.Frame;
import io.bellwether.transport.tcp.Frames.Rejection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One peer connection's framing, handshake and authentication: the last handler of its pipeline. It splits
 * the byte stream into frames, runs the HELLO/LOGIN/AUTH handshake ({@link Frames}), checks every frame
 * (structure, cluster, sender, MAC, counter) and hands decoded messages to its {@link Host}. Any refusal closes
 * the connection, counted with its reason (a handshake that does not complete in time too: {@code
 * handshake-timeout}); nothing escapes to the pipeline.
 *
 * <p>All methods run on the channel's event loop, except where noted.
 */
final class Connection extends ByteToMessageDecoder {
    private static final Logger log = LoggerFactory.getLogger(Connection.class);

    /** What a connection needs from its transport. Called on the connection's event loop. */
    interface Host {
        String cluster();

        NodeId self();

        boolean isMember(NodeId id);

        int maxFrameBytes();

        byte[] newNonce();

        long handshakeTimeoutMillis();

        /** The handshake completed: the peer proved it holds the secret on this very connection. */
        void established(Connection connection);

        /** The channel closed (for any reason); called once. */
        void closed(Connection connection);

        /** A frame was refused; the connection is closed right after this returns. */
        void rejected(Connection connection, String reason, String detail);

        /** A frame was dropped but the connection is kept. */
        void dropped(Connection connection, String reason, String detail);

        /** A locally registered group, or null: looked up once per message, for its codec and its delivery. */
        Peers.Group group(String name);

        void deliver(Connection connection, Peers.Group group, ElectorMessage message);

        /**
         * Whether peers are discovered rather than configured with fixed addresses: then either end of a pair may
         * dial, a dialed connection learns its peer in the handshake, and a connection to this node itself is
         * recognised (see {@link PeerDirectory}).
         */
        default boolean learnsPeers() {
            return false;
        }

        /**
         * A HELLO from member {@code sender} passed its checks: whether the handshake goes on. If not, the
         * connection closes before this end's AUTH, so neither end ever reports it.
         */
        default boolean admit(Connection connection, NodeId sender) {
            return true;
        }

        /**
         * The peer proved it holds the secret on this connection (its LOGIN, or its AUTH on a dialed one): whether
         * the handshake goes on now. If not, the host later calls {@link #vouched()} or closes the connection.
         */
        default boolean vouch(Connection connection) {
            return true;
        }

        /**
         * Why the peer's TLS certificate does not name {@code sender}, or null if it does or there is nothing to
         * check (no TLS, or no peer certificate).
         */
        default String tlsMemberIdProblem(Connection connection, NodeId sender) {
            return null;
        }

        /** This transport's random instance number, sent in LOGIN and AUTH. */
        default long instance() {
            return 0;
        }

        /** Whether this node made {@code nonce} for one of its recent connections. */
        default boolean madeNonce(byte[] nonce) {
            return false;
        }

        /** The connection turned out to link this node with itself; it closes right after this returns. */
        default void reachedSelf(Connection connection) {}
    }

    enum State {
        /** Waiting for the peer's first frame: a HELLO on a dialed connection, a LOGIN on an accepted one. */
        AWAIT_HELLO,
        /** The peer proved itself; the host is deciding whether it may go on ({@link Host#vouch}). */
        VOUCHING,
        AWAIT_AUTH,
        ESTABLISHED,
        CLOSED
    }

    private final Host host;
    private final Mac mac;
    private final NodeId expectedPeer;
    private final NodeAddress dialedAddress;
    private final byte[] localNonce;
    private ChannelHandlerContext ctx;
    private NodeId peer;
    private byte[] remoteNonce;
    private long sent;
    private long received;
    private State state = State.AWAIT_HELLO;
    private boolean wasEstablished;
    /** Whether a flush of the frames written on the loop is queued there ({@link #write}). Loop-confined. */
    private boolean flushQueued;
    /** Messages sent in this pass of the loop, not yet in a frame ({@link #send}). Loop-confined. */
    private final List<Frames.Entry> pending = new ArrayList<>();
    /** What {@link #pending} adds to a BATCH frame. */
    private int pendingBytes;

    private final Runnable flush = this::flushWritten;
    private long peerInstance;
    private Runnable afterVouch;
    private Runnable onPong;
    private ScheduledFuture<?> handshakeTimer;

    /**
     * @param expectedPeer the member this node dialed, or null for an accepted connection
     */
    Connection(Host host, byte[] key, NodeId expectedPeer) {
        this(host, key, expectedPeer, null);
    }

    /**
     * @param expectedPeer the member this node dialed, or null for an accepted connection or one that learns its
     *     peer in the handshake
     * @param dialedAddress the address this node dialed, or null for an accepted connection
     */
    Connection(Host host, byte[] key, NodeId expectedPeer, NodeAddress dialedAddress) {
        this.host = host;
        this.mac = Frames.newMac(key);
        this.expectedPeer = expectedPeer;
        this.dialedAddress = dialedAddress;
        this.localNonce = host.newNonce();
    }

    /** The authenticated (or, for a dialed connection, expected) peer; null before its HELLO on accepted ones. */
    NodeId peer() {
        return peer != null ? peer : expectedPeer;
    }

    boolean dialed() {
        return expectedPeer != null || dialedAddress != null;
    }

    /** The nonce this end sent in its HELLO. */
    byte[] localNonce() {
        return localNonce.clone();
    }

    /** The address this node dialed, or null for an accepted connection. */
    NodeAddress dialedAddress() {
        return dialedAddress;
    }

    State state() {
        return state;
    }

    /** The peer's instance number (see {@link Frames}), once it proved itself; 0 before. */
    long peerInstance() {
        return peerInstance;
    }

    /** Whether the handshake completed at some point (the connection may be closed since). */
    boolean wasEstablished() {
        return wasEstablished;
    }

    Channel channel() {
        return ctx.channel();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        this.ctx = ctx;
        if (!dialed()) {
            // With TLS in front, the handler queues this until its own handshake is done.
            ctx.writeAndFlush(Unpooled.wrappedBuffer(Frames.hello(mac, host.cluster(), host.self(), localNonce)));
        }
        handshakeTimer =
                ctx.executor().schedule(this::handshakeTimedOut, host.handshakeTimeoutMillis(), TimeUnit.MILLISECONDS);
        super.channelActive(ctx);
    }

    private void handshakeTimedOut() {
        handshakeTimer = null;
        if (state == State.AWAIT_HELLO || state == State.VOUCHING || state == State.AWAIT_AUTH) {
            reject(
                    "handshake-timeout",
                    "the handshake did not complete within " + host.handshakeTimeoutMillis() + " ms (" + state
                            + (actualReadableBytes() > 0 ? ", " + actualReadableBytes() + " bytes of a frame" : "")
                            + ")");
        }
    }

    /**
     * Sends one message if the connection is established and not backed up (a stalled peer's messages are
     * dropped rather than buffered without bound). It joins the messages written to this peer in this pass of the
     * loop (from another thread, by way of the loop), which leave together, in BATCH frames, when the pass ends
     * ({@link #write}).
     *
     * @return whether it was written
     */
    boolean send(String group, int type, byte[] body) {
        if (!writable()) {
            return false;
        }
        if (!ctx.executor().inEventLoop()) {
            // Counters and the pending batch belong to the loop: join it there, in order with what it sends.
            ctx.executor().execute(() -> {
                if (writable()) {
                    enqueue(group, type, body);
                }
            });
            return true;
        }
        enqueue(group, type, body);
        return true;
    }

    /** Adds a message to this pass's batch, sealing the batch first when the message would not fit. On the loop. */
    private void enqueue(String group, int type, byte[] body) {
        int bytes = Frames.batchEntryBytes(group, body.length);
        if (!pending.isEmpty()
                && (pending.size() == Frames.MAX_BATCH_ENTRIES
                        || Frames.batchFrameBytes(host.cluster(), host.self(), pendingBytes + bytes)
                                > Math.min(host.maxFrameBytes(), Frames.MAX_BATCH_BYTES))) {
            sealPending(); // full: this one starts the next frame
        }
        pending.add(new Frames.Entry(group, type, body));
        pendingBytes += bytes;
        queueFlush();
    }

    /**
     * Writes the messages sent in this pass as one frame: a MESSAGE for one, a BATCH for more. Before any other frame
     * takes a counter, so that counters follow the order of the frames on the wire. On the loop.
     */
    private void sealPending() {
        if (pending.isEmpty()) {
            return;
        }
        byte[] frame;
        if (pending.size() == 1) {
            Frames.Entry e = pending.get(0);
            frame = Frames.message(
                    mac, host.cluster(), host.self(), ++sent, e.group(), e.type(), e.body(), localNonce, remoteNonce);
        } else {
            frame = Frames.batch(mac, host.cluster(), host.self(), ++sent, pending, localNonce, remoteNonce);
        }
        pending.clear();
        pendingBytes = 0;
        ctx.write(Unpooled.wrappedBuffer(frame), ctx.voidPromise());
    }

    /** Writes out what was sent on the loop and not yet flushed: before the connection is closed. On the loop. */
    void flushPending() {
        if (state == State.ESTABLISHED || !pending.isEmpty()) {
            sealPending();
            ctx.flush();
        }
    }

    /**
     * Sends a PING; {@code alive} runs if the matching PONG comes back on this connection.
     *
     * @return whether the PING was written (the connection is established and not backed up)
     */
    boolean probe(Runnable alive) {
        if (!writable()) {
            return false;
        }
        onPong = alive;
        sealPending();
        write(Frames.probe(mac, Frames.PING, host.cluster(), host.self(), ++sent, localNonce, remoteNonce));
        return true;
    }

    /** Whether a frame may be written after the handshake: established, and not backed up. */
    private boolean writable() {
        return state == State.ESTABLISHED && ctx.channel().isWritable();
    }

    /**
     * Writes a frame after the handshake; a failed write shows up as the channel's closing. On the loop the frame is
     * flushed by a task queued behind what the loop has to do now, once for every frame and message written until
     * it runs: the heartbeats of many groups falling due together, or the answers to every frame of one read, leave
     * in one write (and wake the peer once). The task runs before the loop waits for anything new, so no frame waits
     * for a timer.
     */
    private void write(byte[] frame) {
        if (!ctx.executor().inEventLoop()) {
            ctx.writeAndFlush(Unpooled.wrappedBuffer(frame), ctx.voidPromise());
            return;
        }
        ctx.write(Unpooled.wrappedBuffer(frame), ctx.voidPromise());
        queueFlush();
    }

    private void queueFlush() {
        if (flushQueued) {
            return;
        }
        flushQueued = true;
        try {
            ctx.executor().execute(flush);
        } catch (RejectedExecutionException e) {
            flushQueued = false;
            flushWritten(); // the loop is shutting down: best effort, now
        }
    }

    private void flushWritten() {
        flushQueued = false;
        sealPending();
        ctx.flush();
    }

    /** The host let a {@linkplain State#VOUCHING vouching} connection go on with its handshake. */
    void vouched() {
        if (state == State.VOUCHING) {
            Runnable next = afterVouch;
            afterVouch = null;
            next.run();
        }
    }

    /** Closes this connection on a local decision (no rejection involved), after what was written to it. */
    void close() {
        if (ctx.executor().inEventLoop()) {
            sealPending();
        }
        state = State.CLOSED;
        cancelTimer();
        ctx.flush();
        ctx.close();
    }

    /** This end's AUTH: its proof, over both nonces, that it holds the secret. */
    private void sendAuth() {
        ctx.writeAndFlush(Unpooled.wrappedBuffer(
                Frames.auth(mac, host.cluster(), host.self(), ++sent, host.instance(), localNonce, remoteNonce)));
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        try {
            while (state != State.CLOSED && in.readableBytes() >= 4) {
                int length = Frames.announcedLength(in.getInt(in.readerIndex()), host.maxFrameBytes());
                if (in.readableBytes() < 4 + length) {
                    return;
                }
                in.skipBytes(4);
                byte[] frame = new byte[length];
                in.readBytes(frame);
                onFrame(frame);
            }
        } catch (Rejection r) {
            reject(r.reason, r.getMessage());
        } catch (RuntimeException e) {
            // A bug of ours or of a codec must not escape into the pipeline: refuse the frame instead.
            log.debug("unexpected failure while reading a frame", e);
            reject("malformed", "unexpected failure while reading a frame: " + e);
        }
        if (state == State.CLOSED) {
            in.skipBytes(in.readableBytes());
        }
    }

    private void onFrame(byte[] frame) throws Rejection {
        Frame f = Frames.parse(frame);
        if (!f.cluster().equals(host.cluster())) {
            throw new Rejection(
                    "wrong-cluster",
                    "the peer belongs to cluster '" + f.cluster() + "', this node to '" + host.cluster() + "'");
        }
        NodeId sender = f.sender();
        if (peer != null && !sender.equals(peer)) {
            throw new Rejection("unknown-node", "node " + peer + " sent a frame as '" + sender + "'");
        }
        if (peer == null && f.kind() == Frames.HELLO && sender.equals(host.self()) && host.learnsPeers()) {
            onOwnHello(frame, f);
            return;
        }
        if (peer == null && f.kind() == Frames.LOGIN && sender.equals(host.self())) {
            onLogin(frame, f); // refused there, once its MAC shows a key holder sent it
            return;
        }
        if (!host.isMember(sender) || sender.equals(host.self())) {
            throw new Rejection("unknown-node", "node '" + sender + "' is not a peer of " + host.self());
        }
        switch (f.kind()) {
            case Frames.HELLO -> onHello(frame, f);
            case Frames.LOGIN -> onLogin(frame, f);
            case Frames.AUTH -> onAuth(frame, f);
            case Frames.MESSAGE -> onMessage(frame, f);
            case Frames.BATCH -> onBatch(frame, f);
            case Frames.PING, Frames.PONG -> onProbe(frame, f);
            default -> throw new Rejection("malformed", "unknown frame kind " + f.kind());
        }
    }

    /** On a dialed connection: the accepting end's HELLO, answered with a LOGIN. */
    private void onHello(byte[] frame, Frame f) throws Rejection {
        if (!dialed()) {
            throw new Rejection("malformed", "a HELLO from the dialing end of a connection (expected a LOGIN)");
        }
        if (!Frames.macMatches(mac, frame, null, null)) {
            throw new Rejection("bad-mac", "HELLO from '" + f.sender() + "' has a bad MAC (another secret?)");
        }
        if (state != State.AWAIT_HELLO) {
            throw new Rejection("malformed", "a second HELLO from " + f.sender());
        }
        if (expectedPeer != null && !f.sender().equals(expectedPeer)) {
            throw new Rejection(
                    "unknown-node", "dialed " + expectedPeer + " but '" + f.sender() + "' answered at its address");
        }
        checkTls(f.sender());
        if (!admitted(f.sender())) {
            return;
        }
        peer = f.sender();
        remoteNonce = f.nonce();
        state = State.AWAIT_AUTH;
        ctx.writeAndFlush(Unpooled.wrappedBuffer(
                Frames.login(mac, host.cluster(), host.self(), localNonce, remoteNonce, peer, host.instance())));
    }

    /**
     * On an accepted connection: the dialing end's LOGIN. Everything it covers is checked before this end sends
     * its AUTH: a LOGIN captured elsewhere and replayed here never draws one.
     */
    private void onLogin(byte[] frame, Frame f) throws Rejection {
        if (dialed()) {
            throw new Rejection("malformed", "a LOGIN from the accepting end of a connection (expected a HELLO)");
        }
        if (state != State.AWAIT_HELLO) {
            throw new Rejection("malformed", "a second LOGIN from " + f.sender());
        }
        if (!java.security.MessageDigest.isEqual(f.receiverNonce(), localNonce)) {
            throw new Rejection(
                    "replay",
                    "LOGIN from '" + f.sender() + "' answers another connection's HELLO (replayed from elsewhere)");
        }
        if (!Frames.macMatches(mac, frame, null, null)) {
            throw new Rejection("bad-mac", "LOGIN from '" + f.sender() + "' has a bad MAC (another secret?)");
        }
        if (!f.receiver().equals(host.self().value())) {
            throw new Rejection(
                    "replay", "LOGIN from '" + f.sender() + "' is meant for '" + f.receiver() + "', not this node");
        }
        if (f.sender().equals(host.self())) {
            throw new Rejection(
                    "duplicate-id",
                    "another live process with this node's own id '" + f.sender() + "' connected from "
                            + ctx.channel().remoteAddress() + "; this node listens on "
                            + ctx.channel().localAddress()
                            + ": give every member its own id");
        }
        if (!host.learnsPeers() && f.sender().compareTo(host.self()) > 0) {
            // One connection per pair: the lower id dials. A higher id dialing us is misconfigured.
            throw new Rejection(
                    "wrong-direction",
                    "node " + f.sender() + " dialed " + host.self() + " but the lower id (" + host.self() + ") dials");
        }
        checkTls(f.sender());
        if (!admitted(f.sender())) {
            return;
        }
        peer = f.sender();
        remoteNonce = f.nonce();
        peerInstance = f.instance();
        afterVouch = () -> {
            state = State.AWAIT_AUTH;
            sendAuth();
        };
        vouchThenGoOn();
    }

    private void vouchThenGoOn() {
        state = State.VOUCHING;
        if (host.vouch(this)) {
            vouched();
        }
    }

    private void checkTls(NodeId sender) throws Rejection {
        String problem = host.tlsMemberIdProblem(this, sender);
        if (problem != null) {
            throw new Rejection("tls-member-id", problem);
        }
    }

    /** Asks the host whether the handshake with {@code sender} goes on; if not, closes quietly. */
    private boolean admitted(NodeId sender) {
        if (host.admit(this, sender)) {
            return true;
        }
        log.debug("{} duplicates a connection with {}; closing it before the handshake completes", this, sender);
        close();
        return false;
    }

    /**
     * A HELLO in this node's own name: with discovered peers, an address that resolves to this node itself. It is
     * recognised by its nonce, one this node made for a connection that has not met a peer (a HELLO of ours
     * replayed from a connection with a peer carries a nonce spent there, and is refused).
     */
    private void onOwnHello(byte[] frame, Frame f) throws Rejection {
        if (!Frames.macMatches(mac, frame, null, null)) {
            throw new Rejection("bad-mac", "HELLO in this node's own name has a bad MAC (another secret?)");
        }
        if (!host.madeNonce(f.nonce())) {
            throw new Rejection(
                    "unknown-node",
                    "a node calls itself '" + f.sender()
                            + "', this node's own id, with a nonce this node did not make");
        }
        state = State.CLOSED;
        cancelTimer();
        try {
            host.reachedSelf(this);
        } finally {
            ctx.close();
        }
    }

    private void onAuth(byte[] frame, Frame f) throws Rejection {
        if (state == State.AWAIT_HELLO) {
            throw new Rejection("malformed", "AUTH before " + (dialed() ? "HELLO" : "LOGIN") + " from " + f.sender());
        }
        if (!Frames.macMatches(mac, frame, remoteNonce, localNonce)) {
            throw new Rejection("bad-mac", "AUTH from " + peer + " has a bad MAC (replayed or another secret?)");
        }
        if (state != State.AWAIT_AUTH || f.counter() != received + 1) {
            throw new Rejection("replay", "AUTH from " + peer + " with counter " + f.counter() + " repeated");
        }
        received = f.counter();
        if (!dialed()) {
            establish();
            return;
        }
        // The accepting end proved itself over this end's fresh nonce: only now does this end send its AUTH.
        peerInstance = f.instance();
        afterVouch = () -> {
            sendAuth();
            establish();
        };
        vouchThenGoOn();
    }

    private void establish() {
        state = State.ESTABLISHED;
        wasEstablished = true;
        cancelTimer();
        host.established(this);
    }

    /**
     * What every frame after the handshake must pass, whatever its kind: the connection is established, the MAC
     * (bound to both ends' nonces) holds, and its counter is the next one, so nothing is replayed or reordered.
     */
    private void authenticated(byte[] frame, Frame f, String kind) throws Rejection {
        if (state != State.ESTABLISHED) {
            throw new Rejection("malformed", kind + " from " + f.sender() + " before the handshake completed");
        }
        if (!Frames.macMatches(mac, frame, remoteNonce, localNonce)) {
            throw new Rejection("bad-mac", kind + " from " + peer + " has a bad MAC");
        }
        if (f.counter() != received + 1) {
            throw new Rejection(
                    "replay", kind + " from " + peer + " with counter " + f.counter() + ", expected " + (received + 1));
        }
        received = f.counter();
    }

    private void onProbe(byte[] frame, Frame f) throws Rejection {
        authenticated(frame, f, "PING or PONG");
        if (f.kind() == Frames.PING) {
            sealPending();
            write(Frames.probe(mac, Frames.PONG, host.cluster(), host.self(), ++sent, localNonce, remoteNonce));
        } else if (onPong != null) {
            Runnable alive = onPong;
            onPong = null;
            alive.run();
        }
    }

    private void onMessage(byte[] frame, Frame f) throws Rejection {
        authenticated(frame, f, "MESSAGE");
        Peers.Group group = host.group(f.group());
        if (group == null) {
            host.dropped(this, "unknown-group", "message for group '" + f.group() + "', not registered here");
            return;
        }
        host.deliver(this, group, Frames.decode(group.codec(), f));
    }

    /** Every message of a BATCH decodes before any is delivered: a malformed one refuses the frame whole. */
    private void onBatch(byte[] frame, Frame f) throws Rejection {
        authenticated(frame, f, "BATCH");
        List<Frames.Entry> entries = Frames.entries(f.body());
        ElectorMessage[] messages = new ElectorMessage[entries.size()];
        Peers.Group[] groups = new Peers.Group[messages.length];
        for (int i = 0; i < messages.length; i++) {
            Frames.Entry e = entries.get(i);
            groups[i] = host.group(e.group());
            if (groups[i] != null) {
                messages[i] = Frames.decode(groups[i].codec(), e.group(), e.type(), e.body());
            }
        }
        for (int i = 0; i < messages.length; i++) {
            if (messages[i] == null) {
                host.dropped(
                        this,
                        "unknown-group",
                        "message for group '" + entries.get(i).group() + "', not registered here");
            } else {
                host.deliver(this, groups[i], messages[i]);
            }
            if (state == State.CLOSED) {
                return; // a delivery closed this connection (the host replaced it): the rest goes with it
            }
        }
    }

    private void reject(String reason, String detail) {
        if (state == State.CLOSED) {
            return;
        }
        try {
            host.rejected(this, reason, detail);
        } finally {
            close();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (state != State.CLOSED && actualReadableBytes() > 0) {
            host.rejected(this, "malformed", "connection closed inside a frame (" + actualReadableBytes() + " bytes)");
        }
        state = State.CLOSED;
        cancelTimer();
        try {
            host.closed(this);
        } finally {
            super.channelInactive(ctx);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (state == State.CLOSED) {
            return;
        }
        if (cause instanceof IOException) {
            // The network's verdict (reset, broken pipe): channelInactive follows and reports it.
            log.debug("connection to {} failed: {}", peer(), cause.toString());
            ctx.close();
        } else if (cause instanceof DecoderException && cause.getCause() instanceof SSLException ssl) {
            reject("tls", "TLS failed: " + ssl.getMessage());
        } else {
            reject("malformed", "pipeline failure: " + cause);
        }
    }

    private void cancelTimer() {
        if (handshakeTimer != null) {
            handshakeTimer.cancel(false);
            handshakeTimer = null;
        }
    }

    @Override
    public String toString() {
        return "Connection[" + (dialed() ? "to " : "from ") + peer() + ", " + state + "]";
    }
}
