package io.bellwether.transport.tcp;

import io.bellwether.NodeAddress;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A plain TCP relay on loopback that forwards every connection to {@code target} and counts them: an extra
 * address for the same listener, as a second DNS record of one pod would be.
 */
final class Forwarder implements AutoCloseable {
    private final ServerSocket server;
    private final NodeAddress target;
    private final AtomicInteger accepted = new AtomicInteger();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    Forwarder(NodeAddress target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "forwarder-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    NodeAddress address() {
        return new NodeAddress("127.0.0.1", server.getLocalPort());
    }

    /** Connections accepted so far. */
    int accepted() {
        return accepted.get();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket in = server.accept();
                accepted.incrementAndGet();
                Socket out = new Socket();
                out.connect(new InetSocketAddress(target.host(), target.port()), 5_000);
                sockets.add(in);
                sockets.add(out);
                pump(in, out);
                pump(out, in);
            } catch (IOException e) {
                // closed, or the target refused: the accepted side just ends
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(
                () -> {
                    try (InputStream i = from.getInputStream();
                            OutputStream o = to.getOutputStream()) {
                        i.transferTo(o);
                    } catch (IOException e) {
                        // either side closed
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                    }
                },
                "forwarder-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        sockets.forEach(Forwarder::closeQuietly);
    }
}
