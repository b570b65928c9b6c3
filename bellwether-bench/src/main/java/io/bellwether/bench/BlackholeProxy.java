package io.bellwether.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback TCP forwarder to a store that can be cut: once {@linkplain #blackhole() black-holed} it keeps every
 * connection open but passes no byte, as the network to a process that was killed (or a frozen host) looks from
 * the store's side until TCP gives up. Used to make a lease holder vanish without releasing its lease.
 */
final class BlackholeProxy implements AutoCloseable {
    private final ServerSocket server;
    private final int targetPort;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile boolean blackholed;
    private volatile boolean closed;

    BlackholeProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        daemon("bench-proxy-accept", this::acceptLoop).start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** Passes no more bytes, on open and new connections alike. */
    void blackhole() {
        blackholed = true;
    }

    /** Passes bytes again; connections that lived through the black hole are cut, so clients reconnect. */
    void restore() {
        blackholed = false;
        sockets.forEach(BlackholeProxy::closeQuietly);
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        sockets.forEach(BlackholeProxy::closeQuietly);
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
            try {
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                upstream.setTcpNoDelay(true);
                client.setTcpNoDelay(true);
                sockets.add(upstream);
                daemon("bench-proxy-up", () -> pump(client, upstream)).start();
                daemon("bench-proxy-down", () -> pump(upstream, client)).start();
            } catch (IOException e) {
                closeQuietly(client);
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (!blackholed) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            }
        } catch (IOException e) {
            // one side went away; close both below
        } finally {
            closeQuietly(from);
            closeQuietly(to);
            sockets.remove(from);
            sockets.remove(to);
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
