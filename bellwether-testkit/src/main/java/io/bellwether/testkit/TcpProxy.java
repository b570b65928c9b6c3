package io.bellwether.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP forwarder to a real service that can be told to black-hole: keep every connection open but pass no
 * byte in either direction, as a hung server or a silently dropped network does; or to {@linkplain #cut cut one
 * side}: that side sees its connections end while the other side's stay open and swallow what it writes, as when
 * a middlebox resets one end of a connection and drops the other end's packets.
 */
public final class TcpProxy implements AutoCloseable {
    private final ServerSocket server;
    private final int targetPort;
    /** An end of the connections through the proxy. */
    public enum Side {
        /** The end that connected to the proxy. */
        CLIENT,
        /** The end the proxy connected to: the target. */
        TARGET
    }

    /** One connection through the proxy; {@code target} is null for one accepted during a cut. */
    private static final class Link {
        final Socket client;
        final Socket target;
        /** The socket the proxy closed in a cut, whose pump must leave the other side open. */
        volatile Socket severed;

        Link(Socket client, Socket target) {
            this.client = client;
            this.target = target;
        }
    }

    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private volatile boolean blackholed;
    private volatile Side cut;
    private volatile boolean closed;

    /**
     * Starts a proxy on a free loopback port that forwards every connection to 127.0.0.1:{@code targetPort}.
     *
     * @param targetPort the real service's port
     * @throws IOException if the proxy's own port cannot be opened
     */
    public TcpProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        daemon("proxy-accept", this::acceptLoop).start();
    }

    /** @return the loopback port to connect to instead of the service's */
    public int port() {
        return server.getLocalPort();
    }

    /** Stops passing bytes, on open and new connections alike. */
    public void blackhole() {
        blackholed = true;
    }

    /**
     * Cuts every connection on one side only: closes {@code side}'s socket of each (that end reads the end of the
     * connection at once) and keeps the other end's open, reading and dropping whatever it writes, so that from
     * there the connection looks alive and silent. Until {@link #restore()}, new connections are accepted (never
     * refused: the proxy still listens) and held the same way, without connecting to the target.
     *
     * @param side the end whose sockets are closed
     */
    public void cut(Side side) {
        cut = Objects.requireNonNull(side, "side");
        for (Link link : links) {
            Socket s = side == Side.CLIENT ? link.client : link.target;
            if (s != null) {
                link.severed = s;
                closeQuietly(s);
            }
        }
    }

    /** Passes bytes again; connections that lived through the black hole or the cut are cut so clients reconnect. */
    public void restore() {
        blackholed = false;
        cut = null;
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return;
            }
            sockets.add(client);
            if (cut != null) {
                Link held = new Link(client, null);
                links.add(held);
                daemon("proxy-hold", () -> pump(held, client, null)).start();
                continue;
            }
            try {
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(upstream);
                // Small request/reply traffic: no Nagle delay, or the proxy itself would skew timings.
                upstream.setTcpNoDelay(true);
                client.setTcpNoDelay(true);
                Link link = new Link(client, upstream);
                links.add(link);
                daemon("proxy-up", () -> pump(link, client, upstream)).start();
                daemon("proxy-down", () -> pump(link, upstream, client)).start();
            } catch (IOException e) {
                closeQuietly(client);
            }
        }
    }

    /** Copies {@code from} to {@code to} (null: drops everything) while neither black hole nor cut is on. */
    private void pump(Link link, Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to == null ? null : to.getOutputStream();
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (!blackholed && cut == null && out != null) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            }
        } catch (IOException e) {
            // one side went away; close both below
        } finally {
            sockets.remove(from);
            if (link.severed != from) {
                // The severed side's pump ends when the cut closes its socket; the other side stays open.
                closeQuietly(from);
                if (to != null) {
                    closeQuietly(to);
                    sockets.remove(to);
                }
                links.remove(link);
            }
        }
    }

    private static Thread daemon(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // already closed
        }
    }
}
