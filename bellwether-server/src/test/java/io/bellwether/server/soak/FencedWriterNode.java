package io.bellwether.server.soak;

import io.bellwether.Leadership;
import io.bellwether.LeadershipLostException;
import io.bellwether.server.config.ConfigLoader;
import io.bellwether.server.config.NodeConfig;
import io.bellwether.server.node.NodeDaemon;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;

/**
 * A node process whose leader task writes through a fence: {@code FencedWriterNode JDBC-URL TABLE-PREFIX --config
 * FILE} runs the node the configuration describes (as {@code bellwether node} does) and, while it leads, appends
 * {@code (epoch, node, counter)} rows to {@code PREFIX_writes} every {@value #PACE_MILLIS} ms. Each write is one
 * transaction that first raises the guard row {@code PREFIX_guard} to its epoch, which succeeds only if no higher
 * epoch has written: a write from a deposed leader is rejected and recorded as rejected, never applied.
 */
public final class FencedWriterNode {
    static final long PACE_MILLIS = 50;

    private FencedWriterNode() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 4 || !"--config".equals(args[2])) {
            System.err.println("usage: FencedWriterNode JDBC-URL TABLE-PREFIX --config FILE");
            System.exit(2);
        }
        String url = args[0];
        String prefix = args[1];
        System.setProperty("org.slf4j.simpleLogger.log.io.bellwether", "info");
        System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
        NodeConfig config = ConfigLoader.load(Path.of(args[3]));
        NodeDaemon daemon = NodeDaemon.start(config);
        String node = config.node().value();
        daemon.election().runWhileLeader(leadership -> write(url, prefix, node, leadership));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            daemon.close();
            stopped.countDown();
        }));
        System.out.println("fenced writer " + node + " on " + daemon.url());
        stopped.await();
    }

    private static void write(String url, String prefix, String node, Leadership leadership)
            throws SQLException, InterruptedException {
        try (Connection c = DriverManager.getConnection(url)) {
            c.setAutoCommit(false);
            long counter = 0;
            while (!Thread.currentThread().isInterrupted()) {
                counter++;
                try {
                    leadership.checkValid();
                } catch (LeadershipLostException lost) {
                    return;
                }
                boolean accepted;
                try (PreparedStatement guard = c.prepareStatement(
                        "update " + prefix + "_guard set token = ? where resource = 'soak' and token <= ?")) {
                    guard.setLong(1, leadership.epoch());
                    guard.setLong(2, leadership.epoch());
                    accepted = guard.executeUpdate() == 1;
                }
                if (!accepted) {
                    c.rollback();
                }
                try (PreparedStatement insert = c.prepareStatement("insert into " + prefix
                        + "_writes (epoch, node, counter, accepted, at) values (?, ?, ?, ?, clock_timestamp())")) {
                    insert.setLong(1, leadership.epoch());
                    insert.setString(2, node);
                    insert.setLong(3, counter);
                    insert.setBoolean(4, accepted);
                    insert.executeUpdate();
                }
                c.commit();
                Thread.sleep(PACE_MILLIS); // the workload's pace, not a wait for anything
            }
        }
    }
}
