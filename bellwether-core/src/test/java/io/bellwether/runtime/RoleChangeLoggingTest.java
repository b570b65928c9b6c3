package io.bellwether.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.Election;
import io.bellwether.ElectionListener;
import io.bellwether.NodeAddress;
import io.bellwether.NodeId;
import io.bellwether.Role;
import io.bellwether.elector.ChangeReason;
import io.bellwether.elector.Elector;
import io.bellwether.elector.ElectorContext;
import io.bellwether.elector.ElectorMessage;
import io.bellwether.elector.ElectorSpec;
import io.bellwether.elector.ElectorState;
import io.bellwether.elector.TimerKey;
import io.bellwether.inprocess.InProcessNetwork;
import io.bellwether.state.InMemoryStateStore;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The runtime logs role changes through {@link RoleChangeLog}: a member whose role keeps flapping the same way (here
 * an elector that campaigns and gives up every 50 ms, as a member that cannot win does) logs each kind of change
 * once and a summary of the repeats when it stops. (The test binding, slf4j-simple, writes to whatever {@code
 * System.err} is at the time of each line.)
 */
class RoleChangeLoggingTest {
    @Test
    void aFlappingMemberLogsEachKindOfRoleChangeOnceAndSummarisesTheRepeats() throws Exception {
        NodeId n1 = NodeId.of("n1");
        String group = "flapping-logging";
        InProcessNetwork network = new InProcessNetwork();
        BlockingQueue<String> changes = new LinkedBlockingQueue<>();
        Election election = Election.builder()
                .group(group)
                .self(n1)
                .member(n1, NodeAddress.parse("127.0.0.1:7101"))
                .member(NodeId.of("n2"), NodeAddress.parse("127.0.0.1:7102"))
                .member(NodeId.of("n3"), NodeAddress.parse("127.0.0.1:7103"))
                .algorithm(new Flapping())
                .stateStore(new InMemoryStateStore())
                .transport(network.transport(n1))
                .build();
        election.addListener(new ElectionListener() {
            @Override
            public void roleChanged(Role previous, Role current, long epoch) {
                changes.add(previous + " -> " + current);
            }
        });
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.err;
        System.setErr(new PrintStream(new Tee(original, captured), true, StandardCharsets.UTF_8));
        int toCandidate = 0;
        long startNanos = System.nanoTime();
        long elapsedNanos;
        try {
            election.start();
            // n1 campaigns and gives up, again and again (every 100 ms).
            while (toCandidate < 4) {
                String change = changes.poll(30, TimeUnit.SECONDS);
                assertThat(change).as("next role change of the isolated member").isNotNull();
                if (change.equals("FOLLOWER -> CANDIDATE")) {
                    toCandidate++;
                }
            }
        } finally {
            elapsedNanos = System.nanoTime() - startNanos;
            election.close();
            network.close();
            System.setErr(original);
        }
        // One line per window of the limiter (a single one unless this machine took more than 10 s).
        long windows = 1 + elapsedNanos / RoleChangeLog.WINDOW_NANOS;
        String prefix = "group " + group + " node n1: ";
        List<String> lines = captured.toString(StandardCharsets.UTF_8)
                .lines()
                .filter(l -> l.contains(prefix))
                .map(l -> l.substring(l.indexOf(prefix) + prefix.length()))
                .toList();

        assertThat(lines.stream().filter(l -> l.startsWith("FOLLOWER -> CANDIDATE at epoch")))
                .as("lines of FOLLOWER -> CANDIDATE, offered at least %d times, in %s", toCandidate, lines)
                .hasSizeBetween(1, (int) Math.min(windows, toCandidate - 1));
        assertThat(lines)
                .anySatisfy(l -> assertThat(l)
                        .matches("FOLLOWER -> CANDIDATE \\(\\w+\\) repeated \\d+ times in the last"
                                + " \\d+ s, the last at epoch \\d+"))
                .anySatisfy(l -> assertThat(l).matches("\\w+ -> DORMANT at epoch \\d+ \\(STOPPED\\)"));
    }

    /** An elector that campaigns and gives up every 50 ms, for ever: a member that cannot win. */
    private static final class Flapping implements ElectorSpec {
        private static final TimerKey FLIP = () -> "flip";

        @Override
        public String algorithm() {
            return "flapping";
        }

        @Override
        public Elector create(ElectorContext ctx) {
            return new Elector() {
                private boolean campaigning;
                private boolean running;

                @Override
                public void start() {
                    running = true;
                    ctx.announce(state(), ChangeReason.STARTED);
                    ctx.schedule(FLIP, 50_000_000L);
                }

                @Override
                public void onMessage(NodeId from, ElectorMessage message) {}

                @Override
                public void onTimer(TimerKey key) {
                    if (!running) {
                        return;
                    }
                    campaigning = !campaigning;
                    ctx.announce(state(), campaigning ? ChangeReason.CAMPAIGNING : ChangeReason.ROUND_FAILED);
                    ctx.schedule(FLIP, 50_000_000L);
                }

                @Override
                public void stop() {
                    running = false;
                    ctx.announce(ElectorState.DORMANT, ChangeReason.STOPPED);
                }

                @Override
                public ElectorState state() {
                    if (!running) {
                        return ElectorState.DORMANT;
                    }
                    return new ElectorState(campaigning ? Role.CANDIDATE : Role.FOLLOWER, 0, Optional.empty());
                }
            };
        }
    }

    private static final class Tee extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        Tee(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public synchronized void write(int c) throws java.io.IOException {
            a.write(c);
            b.write(c);
        }

        @Override
        public synchronized void write(byte[] bytes, int off, int len) throws java.io.IOException {
            a.write(bytes, off, len);
            b.write(bytes, off, len);
        }

        @Override
        public synchronized void flush() throws java.io.IOException {
            a.flush();
            b.flush();
        }
    }
}
