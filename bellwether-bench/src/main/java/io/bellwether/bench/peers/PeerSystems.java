package io.bellwether.bench.peers;

import io.bellwether.server.demo.LocalCluster;
import io.bellwether.testkit.Ports;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The systems {@link PeerComparison} measures, by the names {@code --systems} takes, and how each is laid out as
 * processes on loopback.
 */
public final class PeerSystems {
    /** Bellwether's quorum default detection timeout: heartbeat-interval 100 ms × missed-heartbeats 4. */
    public static final int BELLWETHER_DETECTION_MILLIS = 400;

    /** ZooKeeper's default tickTime, in ms (zoo_sample.cfg and the server's own default). */
    static final int ZOOKEEPER_DEFAULT_TICK_MILLIS = 2000;

    /** Where the lease systems find PostgreSQL unless told otherwise. */
    public static final String DEFAULT_JDBC_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    private static final String PACKAGE = "io.bellwether.bench.peers.";

    /** Every system, by name, with what the table's notes say of it. */
    public static final Map<String, String> SYSTEMS = systems();

    /** The lease systems' node mains, by system name. */
    static final Map<String, String> LEASE_MAINS = Map.of(
            "bellwether-lease", PACKAGE + "BellwetherLeaseNode",
            "shedlock", PACKAGE + "ShedLockNode",
            "spring-integration", PACKAGE + "SpringIntegrationNode");

    private static Map<String, String> systems() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put(
                "bellwether-3",
                "Bellwether quorum, 3 nodes, defaults (detection 100 ms × 4); node JVM options as shipped;"
                        + " graceful = daemon close (hand-over to the ready standby)");
        s.put("bellwether-5", "Bellwether quorum, 5 nodes, otherwise as bellwether-3");
        s.put(
                "ratis",
                "Apache Ratis 3.2.0, 3 servers, defaults (gRPC; election timeout 150–300 ms), empty state machine;"
                        + " leader = StateMachine.notifyLeaderChanged naming itself; graceful = the leader sends"
                        + " itself the transferLeadership admin request (next peer, 3 s), then closes; JVM defaults");
        s.put(
                "curator-default",
                "Apache Curator 5.9.0 LeaderLatch on 3 ZooKeeper 3.9.4 servers (separate processes, -Xmx1000m as"
                        + " zkServer.sh), all defaults (tickTime 2 s: the 60 s session Curator asks for is capped at"
                        + " maxSessionTimeout = 40 s); graceful = latch.close(); JVM defaults");
        s.put(
                "curator-tuned",
                "as curator-default, session timeout " + BELLWETHER_DETECTION_MILLIS
                        + " ms = Bellwether's detection timeout (tickTime " + (BELLWETHER_DETECTION_MILLIS / 2)
                        + " ms so that minSessionTimeout = 2 × tickTime allows it; initLimit/syncLimit scaled to keep"
                        + " the default 20 s/10 s)");
        s.put(
                "bellwether-lease",
                "Bellwether lease elector on PostgreSQL, lease = --lease-ms; node JVM options as shipped");
        s.put(
                "shedlock",
                "ShedLock 6.3.1 JdbcTemplateLockProvider on PostgreSQL, lock held for --lease-ms; JVM defaults");
        s.put(
                "spring-integration",
                "Spring Integration 6.4.4 LockRegistryLeaderInitiator on JdbcLockRegistry (PostgreSQL), TTL ="
                        + " --lease-ms; JVM defaults");
        return java.util.Collections.unmodifiableMap(s);
    }

    private PeerSystems() {}

    /** Whether the system is one of Bellwether's (its figures are the ratios' numerators). */
    public static boolean isBellwether(String system) {
        return system.startsWith("bellwether");
    }

    /** Whether the system elects through a lease in PostgreSQL. */
    public static boolean isLease(String system) {
        return LEASE_MAINS.containsKey(system);
    }

    /** Whether the system's failover after a crash takes tens of seconds (its trials are {@code --slow-trials}). */
    public static boolean isSlow(String system) {
        return system.equals("curator-default");
    }

    /**
     * Lays out a system as processes (started by {@link PeerCluster#start}).
     *
     * @param dir an empty directory of the cluster's own
     * @param leaseMillis the lease of the lease systems
     * @param jdbcUrl PostgreSQL, for the lease systems
     */
    public static PeerCluster build(String system, Path dir, int leaseMillis, String jdbcUrl) throws IOException {
        PeerCluster cluster = new PeerCluster(system, dir);
        switch (system) {
            case "bellwether-3" -> bellwether(cluster, 3);
            case "bellwether-5" -> bellwether(cluster, 5);
            case "ratis" -> ratis(cluster, 3);
            case "curator-default" -> curator(cluster, 3, false);
            case "curator-tuned" -> curator(cluster, 3, true);
            default -> {
                if (!isLease(system)) {
                    throw new IllegalArgumentException("unknown system '" + system + "'; allowed: " + SYSTEMS.keySet());
                }
                lease(cluster, LEASE_MAINS.get(system), leaseMillis, jdbcUrl, system.equals("bellwether-lease"));
            }
        }
        return cluster;
    }

    private static void bellwether(PeerCluster cluster, int nodes) throws IOException {
        Path dir = cluster.directory();
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        Path secretFile = dir.resolve("secret");
        Files.writeString(secretFile, HexFormat.of().formatHex(secret) + "\n", StandardCharsets.UTF_8);
        List<int[]> ports = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            ports.add(new int[] {freePort(), freePort()});
        }
        StringBuilder peers = new StringBuilder("peers:\n");
        for (int j = 0; j < nodes; j++) {
            peers.append(String.format(
                    "  n%d: {address: 127.0.0.1:%d, http: 127.0.0.1:%d}%n", j + 1, ports.get(j)[0], ports.get(j)[1]));
        }
        for (int i = 0; i < nodes; i++) {
            String id = "n" + (i + 1);
            Path config = dir.resolve(id + ".yaml");
            Files.writeString(
                    config,
                    "cluster: peers-" + HexFormat.of().formatHex(secret, 0, 3) + "\n"
                            + "node: " + id + "\n"
                            + "algorithm: quorum\n"
                            + "listen: 127.0.0.1:" + ports.get(i)[0] + "\n"
                            + "http: 127.0.0.1:" + ports.get(i)[1] + "\n"
                            + peers
                            + "secret-file: " + secretFile + "\n"
                            + "state-dir: " + dir.resolve("state-" + id) + "\n",
                    StandardCharsets.UTF_8);
            cluster.addNode(
                    id, java(LocalCluster.NODE_JVM_OPTIONS, PACKAGE + "BellwetherQuorumNode", config.toString()));
        }
    }

    private static void ratis(PeerCluster cluster, int nodes) throws IOException {
        StringBuilder peers = new StringBuilder();
        for (int i = 0; i < nodes; i++) {
            peers.append(i == 0 ? "" : ",")
                    .append("n")
                    .append(i + 1)
                    .append("=127.0.0.1:")
                    .append(freePort());
        }
        String group = UUID.randomUUID().toString();
        for (int i = 0; i < nodes; i++) {
            String id = "n" + (i + 1);
            Path storage = cluster.directory().resolve("ratis-" + id);
            cluster.addNode(
                    id, java(List.of(), PACKAGE + "RatisNode", id, storage.toString(), group, peers.toString()));
        }
    }

    private static void curator(PeerCluster cluster, int servers, boolean tuned) throws IOException {
        Path dir = cluster.directory();
        int tick = tuned ? BELLWETHER_DETECTION_MILLIS / 2 : ZOOKEEPER_DEFAULT_TICK_MILLIS;
        // initLimit and syncLimit count ticks: kept at the default 20 s and 10 s whatever the tick.
        int initLimit = 10 * ZOOKEEPER_DEFAULT_TICK_MILLIS / tick;
        int syncLimit = 5 * ZOOKEEPER_DEFAULT_TICK_MILLIS / tick;
        StringBuilder ensemble = new StringBuilder();
        StringBuilder connect = new StringBuilder();
        List<Integer> clientPorts = new ArrayList<>();
        for (int i = 1; i <= servers; i++) {
            int client = freePort();
            clientPorts.add(client);
            ensemble.append("server.")
                    .append(i)
                    .append("=127.0.0.1:")
                    .append(freePort())
                    .append(':')
                    .append(freePort())
                    .append('\n');
            connect.append(i == 1 ? "" : ",").append("127.0.0.1:").append(client);
        }
        for (int i = 1; i <= servers; i++) {
            Path data = dir.resolve("zk" + i);
            Files.createDirectories(data);
            Files.writeString(data.resolve("myid"), i + "\n", StandardCharsets.UTF_8);
            Path cfg = dir.resolve("zoo" + i + ".cfg");
            Files.writeString(
                    cfg,
                    "tickTime=" + tick + "\n"
                            + "initLimit=" + initLimit + "\n"
                            + "syncLimit=" + syncLimit + "\n"
                            + "dataDir=" + data + "\n"
                            + "clientPort=" + clientPorts.get(i - 1) + "\n"
                            + "clientPortAddress=127.0.0.1\n"
                            + "admin.enableServer=false\n"
                            + ensemble,
                    StandardCharsets.UTF_8);
            cluster.addSupport(
                    "zk" + i,
                    java(
                            List.of("-Xmx1000m", "-Dzookeeper.admin.enableServer=false"),
                            "org.apache.zookeeper.server.quorum.QuorumPeerMain",
                            cfg.toString()));
        }
        String session = tuned ? Integer.toString(BELLWETHER_DETECTION_MILLIS) : "0";
        String path = "/bw-peers/" + HexFormat.of().toHexDigits(new SecureRandom().nextInt());
        for (int i = 1; i <= 3; i++) {
            cluster.addNode(
                    "n" + i, java(List.of(), PACKAGE + "CuratorNode", "n" + i, connect.toString(), session, path));
        }
    }

    private static void lease(PeerCluster cluster, String main, int leaseMillis, String jdbcUrl, boolean bellwether) {
        String prefix = "peers_" + HexFormat.of().toHexDigits(new SecureRandom().nextInt());
        for (int i = 1; i <= 3; i++) {
            cluster.addNode(
                    "n" + i,
                    java(
                            bellwether ? LocalCluster.NODE_JVM_OPTIONS : List.of(),
                            main,
                            "n" + i,
                            jdbcUrl,
                            prefix,
                            Integer.toString(leaseMillis)));
        }
        cluster.onClose(() -> dropTables(jdbcUrl, prefix));
    }

    /** Calls {@code LeaseNodes.dropTables(jdbcUrl, prefix)}, found by name. */
    static void dropTables(String jdbcUrl, String prefix) {
        try {
            Class.forName(PACKAGE + "LeaseNodes")
                    .getMethod("dropTables", String.class, String.class)
                    .invoke(null, jdbcUrl, prefix);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("dropping the tables " + prefix + "*: " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("no LeaseNodes.dropTables(String, String) in this build: " + e, e);
        }
    }

    /** Whether the node main of a system is in this build (the lease systems' are written separately). */
    static boolean available(String system) {
        if (!isLease(system)) {
            return true;
        }
        try {
            Class.forName(LEASE_MAINS.get(system), false, PeerSystems.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** {@code java OPTIONS -cp CLASSPATH MAIN ARGS}, with this process's Java and class path. */
    static List<String> java(List<String> jvmOptions, String main, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main);
        command.addAll(List.of(args));
        return command;
    }

    /** A loopback port free now, below Linux's ephemeral range ({@link Ports}). */
    static int freePort() {
        return Ports.free();
    }
}
