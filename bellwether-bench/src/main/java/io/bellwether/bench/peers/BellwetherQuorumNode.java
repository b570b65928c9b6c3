package io.bellwether.bench.peers;

import io.bellwether.ElectionListener;
import io.bellwether.Leadership;
import io.bellwether.RevocationReason;
import io.bellwether.server.config.ConfigLoader;
import io.bellwether.server.config.NodeConfig;
import io.bellwether.server.node.NodeDaemon;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A Bellwether node as {@code bellwether node} runs it, printing {@link PeerProtocol} lines: {@code
 * BellwetherQuorumNode CONFIG_FILE}. On SIGTERM it closes the daemon, which hands its leadership over (the graceful
 * path).
 */
public final class BellwetherQuorumNode {
    private BellwetherQuorumNode() {}

    /**
     * Runs the node until SIGTERM.
     *
     * @param args the configuration file
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: BellwetherQuorumNode CONFIG_FILE");
            System.exit(2);
        }
        NodeConfig config = ConfigLoader.load(Path.of(args[0]));
        NodeDaemon daemon = NodeDaemon.start(config);
        AtomicBoolean leading = new AtomicBoolean();
        daemon.election().addListener(new ElectionListener() {
            @Override
            public void elected(Leadership leadership) {
                if (leading.compareAndSet(false, true)) {
                    PeerProtocol.leader(System.out);
                }
            }

            @Override
            public void revoked(Leadership leadership, RevocationReason reason) {
                if (leading.compareAndSet(true, false)) {
                    PeerProtocol.follower(System.out);
                }
            }
        });
        // Elected before the listener was added: reported now (only at start-up, never in a measured failover).
        if (daemon.election().isLeader() && leading.compareAndSet(false, true)) {
            PeerProtocol.leader(System.out);
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            daemon.close();
            stopped.countDown();
        }));
        PeerProtocol.ready(System.out, config.node().value());
        stopped.await();
    }
}
