package io.bellwether.bench.peers;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * A contender in Apache Curator's {@code LeaderLatch} on a ZooKeeper ensemble, printing {@link PeerProtocol} lines:
 * {@code CuratorNode ID CONNECT_STRING SESSION_MS LATCH_PATH}, a session timeout of 0 meaning Curator's default. The
 * retry policy is the one Curator's documentation starts with (exponential back-off from 1 s, 3 retries). On SIGTERM
 * it closes the latch (deleting its node, so that the next contender leads at once) and the client.
 */
public final class CuratorNode {
    private CuratorNode() {}

    /**
     * Runs the contender until SIGTERM.
     *
     * @param args id, ZooKeeper connect string, session timeout in ms (0: default), latch path
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: CuratorNode ID CONNECT_STRING SESSION_MS LATCH_PATH");
            System.exit(2);
        }
        String id = args[0];
        int sessionMillis = Integer.parseInt(args[2]);
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(args[1])
                .retryPolicy(new ExponentialBackoffRetry(1000, 3));
        if (sessionMillis > 0) {
            builder.sessionTimeoutMs(sessionMillis);
        }
        CuratorFramework client = builder.build();
        client.start();
        if (!client.blockUntilConnected(120, TimeUnit.SECONDS)) {
            System.err.println(id + ": no connection to " + args[1] + " in 120 s");
            System.exit(1);
        }
        LeaderLatch latch = new LeaderLatch(client, args[3], id);
        latch.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                PeerProtocol.leader(System.out);
            }

            @Override
            public void notLeader() {
                PeerProtocol.follower(System.out);
            }
        });
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                latch.close();
            } catch (Exception e) {
                System.err.println(id + ": closing the latch: " + e);
            }
            client.close();
            stopped.countDown();
        }));
        latch.start();
        PeerProtocol.ready(System.out, id);
        stopped.await();
    }
}
