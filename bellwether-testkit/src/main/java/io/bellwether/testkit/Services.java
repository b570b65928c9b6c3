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
