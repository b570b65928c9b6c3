package io.bellwether.bench.scale;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.LeaderView;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.state.InMemoryStateStore;
import io.bellwether.transport.tcp.TcpTransport;
import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One member process of {@link ScaleGroups}: one {@link TcpTransport} and {@code G} quorum elections on it (groups
 * {@code g0} to {@code g(G-1)}), with the default timings and in-memory state, as an application that elects a
 * leader per shard would run them.
 *
 * <p>It prints a {@link ViewLine} on standard output each time the leader its member knows for a group changes
 * (nothing per heartbeat), buffered and flushed every {@value #FLUSH_MILLIS} ms so that thousands of groups
 * electing at once do not each pay for a write: every line carries the member's own stamp on the change, so the
 * flush delays only when the driver sees it, not what it measures. {@code scale started NANOS} follows once every
 * election has started. It ends (halts) when its standard input closes, so it never outlives its driver.
 *
 * <p>Usage: {@code ScaleNode --self ID --members ID=HOST:PORT,... --groups G --spread true|false}, with the cluster's shared secret
 * (hex, at least 16 bytes) in the environment variable {@value #SECRET_ENV}.
 */
public final class ScaleNode {
    /** The environment variable that carries the shared secret, hex-encoded. */
    static final String SECRET_ENV = "BELLWETHER_SCALE_SECRET";

    /** The cluster name of every member's transport. */
    static final String CLUSTER = "scale";

    /** How often buffered view lines are written out. */
    static final int FLUSH_MILLIS = 20;

    /** Elections are started from this many threads: each start waits for a round trip to the shared I/O loop. */
    private static final int START_THREADS = 4;

    private ScaleNode() {}

    /**
     * Runs the member until its standard input closes.
     *
     * @param args {@code --self ID --members ID=HOST:PORT,... --groups G}
     * @throws Exception if the transport cannot listen or an election cannot start
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i], args[i + 1]);
        }
        if (args.length % 2 != 0
                || !options.keySet().equals(java.util.Set.of("--self", "--members", "--groups", "--spread"))) {
            System.err.println("usage: ScaleNode --self ID --members ID=HOST:PORT,... --groups G --spread true|false");
            System.exit(2);
        }
        NodeId self = NodeId.of(options.get("--self"));
        Map<NodeId, NodeAddress> members = new LinkedHashMap<>();
        for (String member : options.get("--members").split(",")) {
            String[] idAddress = member.split("=", 2);
            members.put(NodeId.of(idAddress[0]), NodeAddress.parse(idAddress[1]));
        }
        int groups = Integer.parseInt(options.get("--groups"));
        boolean spread = Boolean.parseBoolean(options.get("--spread"));
        String secret = System.getenv(SECRET_ENV);
        if (secret == null) {
            System.err.println("ScaleNode: the environment variable " + SECRET_ENV + " must hold the shared secret");
            System.exit(2);
        }

        Output out = new Output();
        TcpTransport transport = TcpTransport.builder()
                .cluster(CLUSTER)
                .self(self)
                .members(members)
                .secret(HexFormat.of().parseHex(secret))
                .build();
        transport.start();
        InMemoryStateStore state = new InMemoryStateStore();
        List<Election> elections = new ArrayList<>(groups);
        for (int g = 0; g < groups; g++) {
            int group = g;
            Election election = Election.builder()
                    .group(ViewLine.groupName(g))
                    .self(self)
                    .stateStore(state)
                    .transport(transport)
                    .spreadLeaders(spread)
                    .build();
            election.addListener(new ElectionListener() {
                @Override
                public void leaderChanged(Optional<LeaderView> leader) {
                    out.line(new ViewLine(
                                    group,
                                    leader.map(v -> v.leader().value()),
                                    leader.map(LeaderView::epoch).orElse(0L),
                                    leader.map(LeaderView::learnedAtNanos).orElseGet(System::nanoTime))
                            .format());
                }
            });
            elections.add(election);
        }
        ExecutorService starters = Executors.newFixedThreadPool(START_THREADS);
        try {
            List<Future<?>> started = new ArrayList<>();
            for (int t = 0; t < START_THREADS; t++) {
                int first = t;
                started.add(starters.submit(() -> {
                    for (int g = first; g < groups; g += START_THREADS) {
                        elections.get(g).start();
                    }
                }));
            }
            for (Future<?> f : started) {
                f.get();
            }
        } finally {
            starters.shutdown();
            starters.awaitTermination(10, TimeUnit.SECONDS);
        }
        out.line("scale started " + System.nanoTime());

        // The driver closes standard input when it is done, or by dying; either way this member ends with it.
        while (System.in.read() != -1) {
            // nothing is sent on standard input
        }
        out.flush();
        Runtime.getRuntime().halt(0);
    }

    /** Standard output, written by the elections' notifier threads and flushed by a thread of its own. */
    private static final class Output {
        private final BufferedWriter writer = new BufferedWriter(
                new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.US_ASCII), 1 << 16);
        private boolean dirty;

        Output() {
            Thread flusher = new Thread(
                    () -> {
                        while (true) {
                            try {
                                Thread.sleep(FLUSH_MILLIS);
                            } catch (InterruptedException e) {
                                return;
                            }
                            flush();
                        }
                    },
                    "scale-output-flush");
            flusher.setDaemon(true);
            flusher.start();
        }

        synchronized void line(String line) {
            try {
                writer.write(line);
                writer.write('\n');
                dirty = true;
            } catch (IOException e) {
                // The driver is gone (see flush); the election's notifier thread must not fail for it.
            }
        }

        synchronized void flush() {
            if (!dirty) {
                return;
            }
            try {
                writer.flush();
                dirty = false;
            } catch (IOException e) {
                // The driver is gone: nothing reads the lines any more, and the process ends with standard input.
                dirty = false;
            }
        }
    }
}
