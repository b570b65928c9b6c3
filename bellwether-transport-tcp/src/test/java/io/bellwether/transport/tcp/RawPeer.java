package io.bellwether.transport.tcp;

import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.security.SecureRandom;
import javax.crypto.Mac;

/**
 * A hand-driven peer on a plain socket: speaks the wire format through {@link Frames} so that tests can send
 * exactly the bytes they want (replays, other versions, oversized frames) and record what they sent.
 */
final class RawPeer implements AutoCloseable {
    final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    final ByteArrayOutputStream sent = new ByteArrayOutputStream();
    final String cluster;
    final NodeId self;
    final Mac mac;
    final byte[] nonce = new byte[Frames.NONCE_BYTES];
    byte[] remoteNonce;
    final long instance = new SecureRandom().nextLong();
    long counter;

    RawPeer(NodeAddress to, String cluster, NodeId self, byte[] key) throws IOException {
        this.socket = new Socket();
        socket.connect(new InetSocketAddress(to.host(), to.port()), 10_000);
        socket.setSoTimeout(20_000);
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
        this.cluster = cluster;
        this.self = self;
        this.mac = Frames.newMac(key);
        new SecureRandom().nextBytes(nonce);
    }

    /** Reads one frame (without its length prefix). */
    byte[] read() throws IOException {
        int length = in.readInt();
        byte[] frame = new byte[length];
        in.readFully(frame);
        return frame;
    }

    void write(byte[] bytes) throws IOException {
        sent.write(bytes);
        out.write(bytes);
        out.flush();
    }

    /** Sends {@code entries} as one BATCH frame under the next counter (after the handshake). */
    void writeBatch(java.util.List<Frames.Entry> entries) throws IOException {
        write(Frames.batch(mac, cluster, self, ++counter, entries, nonce, remoteNonce));
    }

    /** Runs the handshake as the dialing end: reads the transport's HELLO, sends a LOGIN, reads its AUTH, sends ours. */
    void handshake(NodeId receiver) throws IOException, Frames.Rejection {
        readHello();
        write(login(receiver));
        Frames.Frame auth = Frames.parse(read());
        if (auth.kind() != Frames.AUTH) {
            throw new IOException("expected AUTH, got kind " + auth.kind());
        }
        write(Frames.auth(mac, cluster, self, ++counter, instance, nonce, remoteNonce));
    }

    /** Reads the transport's HELLO and keeps its nonce. */
    void readHello() throws IOException, Frames.Rejection {
        remoteNonce = Frames.parse(read()).nonce();
    }

    /** A LOGIN answering the HELLO read last, for {@code receiver}. */
    byte[] login(NodeId receiver) {
        return Frames.login(mac, cluster, self, nonce, remoteNonce, receiver, instance);
    }

    byte[] message(String group, int type, byte[] body) {
        return Frames.message(mac, cluster, self, ++counter, group, type, body, nonce, remoteNonce);
    }

    /** Whether the transport closed the connection (reads until end of stream, or a reset). */
    boolean closedByRemote() throws IOException {
        try {
            while (true) {
                int length = in.readInt();
                in.readFully(new byte[length]);
            }
        } catch (java.io.EOFException | SocketException e) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
