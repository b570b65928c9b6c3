package io.bellwether.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP forwarder to a real service that can be told to black-hole: keep every connection open but pass no
 * byte in either direction, as a hung server or a silently dropped network does.
 */
public final class TcpProxy implements AutoCloseable {
    private final ServerSocket server;
    private final int targetPort;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile boolean blackholed;
    private volatile boolean closed;

    public TcpProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        daemon("proxy-accept", this::acceptLoop).start();
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Stops passing bytes, on open and new connections alike. */
    public void blackhole() {
        blackholed = true;
    }

    /** Passes bytes again; connections that lived through the black hole are cut so clients reconnect. */
    public void restore() {
        blackholed = false;
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
            try {
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(upstream);
                // Small request/reply traffic: no Nagle delay, or the proxy itself would skew timings.
                upstream.setTcpNoDelay(true);
                client.setTcpNoDelay(true);
                daemon("proxy-up", () -> pump(client, upstream)).start();
                daemon("proxy-down", () -> pump(upstream, client)).start();
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
