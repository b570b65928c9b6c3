package io.bellwether.testkit;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import org.junit.jupiter.api.Assumptions;

/**
 * Whether a real service (database, Redis) the integration tests need is up. Off CI a missing service skips its tests with a
 * loud line on stderr; on CI ({@code CI=true}) it fails them, because CI starts every service first.
 */
public final class Services {
    private Services() {}

    /**
     * Returns when {@code host:port} accepts a TCP connection within 2 s; otherwise aborts the calling test (it is
     * reported as skipped, with a line on stderr) or, on CI, fails it.
     *
     * @param service the service's name for the messages, e.g. {@code PostgreSQL}
     * @param host where it should listen
     * @param port its port
     */
    public static void require(String service, String host, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 2_000);
        } catch (IOException e) {
            String message = service + " is not reachable on " + host + ":" + port + " (" + e.getMessage()
                    + "); start it as .ci/run does";
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                fail("CI=true and " + message);
            }
            System.err.println("!!! SKIPPING " + service + " integration tests: " + message);
            Assumptions.abort(message);
        }
    }
}
