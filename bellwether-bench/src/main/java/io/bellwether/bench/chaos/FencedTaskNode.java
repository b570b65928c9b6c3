package io.bellwether.bench.chaos;

import io.bellwether.LeadershipLostException;
import io.bellwether.server.config.ConfigLoader;
import io.bellwether.server.config.NodeConfig;
import io.bellwether.server.node.NodeDaemon;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/**
 * A node process whose leader task ({@code runWhileLeader}) is the fenced writer: {@code FencedTaskNode PREFIX
 * --config FILE} runs the node the configuration describes, as {@code bellwether node} does, and while it leads
 * writes through the fence into the {@link FencedLedger} of that prefix, calling {@code checkValid()} before each
 * attempt as a leader task should.
 */
public final class FencedTaskNode {
    private FencedTaskNode() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 3 || !"--config".equals(args[1])) {
            System.err.println("usage: FencedTaskNode PREFIX --config FILE");
            System.exit(2);
        }
        FencedLedger ledger = new FencedLedger(args[0]);
        System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
        NodeConfig config = ConfigLoader.load(Path.of(args[2]));
        NodeDaemon daemon = NodeDaemon.start(config);
        String node = config.node().value();
        daemon.election().runWhileLeader(leadership -> {
            ledger.recordStart(leadership.epoch(), node, FencedWriter.class.getName());
            String outcome = ledger.writeLoop(
                    leadership.epoch(),
                    node,
                    () -> {
                        try {
                            leadership.checkValid();
                            return true;
                        } catch (LeadershipLostException lost) {
                            return false;
                        }
                    },
                    Optional.empty());
            System.out.println("fenced task " + node + " at epoch " + leadership.epoch() + ": " + outcome);
        });
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            daemon.close();
            stopped.countDown();
        }));
        System.out.println("fenced task node " + node + " on " + daemon.url());
        stopped.await();
    }
}
