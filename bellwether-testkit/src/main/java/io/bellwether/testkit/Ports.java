package io.bellwether.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Free ports for test nodes, taken <em>below</em> Linux's default ephemeral range (32768–60999).
 *
 * <p>A port the system hands out ({@code new ServerSocket(0)}) lies in the ephemeral range. Between the test
 * asking for it and a node binding it, or while a node is down to be restarted, any outgoing connection on the
 * machine (a node dialing a peer, a database pool, an HTTP client) may be given that port as its local port, and
 * the node then cannot listen. On a busy CI machine that is a flaky test. Ports from 10000–19999 are never handed
 * out that way; {@code bellwether demo} uses 20000–31999, so the two do not meet either.
 */
public final class Ports {
    private static final int FIRST = 10_000;
    private static final int COUNT = 10_000;

    /** Where this JVM looks next: spread by process id, so that test JVMs running together start apart. */
    private static final AtomicInteger NEXT =
            new AtomicInteger((int) (ProcessHandle.current().pid() % 500) * 20);

    private Ports() {}

    /**
     * A port free now on 127.0.0.1.
     *
     * @return the port
     */
    public static int free() {
        return freeOn("127.0.0.1");
    }

    /**
     * A port free now on every one of {@code addresses} (loopback addresses such as 127.0.0.2).
     *
     * @param addresses the addresses to check
     * @return the port
     */
    public static int freeOn(String... addresses) {
        for (int tries = 0; tries < COUNT; tries++) {
            int port = FIRST + Math.floorMod(NEXT.getAndIncrement(), COUNT);
            if (bindable(port, addresses)) {
                return port;
            }
        }
        throw new UncheckedIOException(new IOException(
                "no port from " + FIRST + " to " + (FIRST + COUNT - 1) + " is free on all of " + List.of(addresses)));
    }

    private static boolean bindable(int port, String... addresses) {
        for (String address : addresses) {
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(true);
                socket.bind(new InetSocketAddress(InetAddress.getByName(address), port), 1);
            } catch (IOException taken) {
                return false;
            }
        }
        return true;
    }
}
