package io.bellwether.bench.peers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.impl.BaseStateMachine;

/**
 * An Apache Ratis server with its defaults (gRPC) and a state machine that holds nothing, printing {@link
 * PeerProtocol} lines from the state machine's leader-change notification: {@code RatisNode ID STORAGE_DIR GROUP_UUID
 * ID=HOST:PORT,...}. On SIGTERM a leader first transfers its leadership to the next peer in the list (the {@code
 * transferLeadership} admin request, which returns once that peer leads or after 3 s), then closes the server; a
 * follower just closes.
 */
public final class RatisNode {
    private RatisNode() {}

    /** The state machine: no state, only the leader-change notification. */
    private static final class LeaderReporting extends BaseStateMachine {
        private final RaftPeerId self;
        private final AtomicBoolean leading = new AtomicBoolean();

        LeaderReporting(RaftPeerId self) {
            this.self = self;
        }

        @Override
        public void notifyLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {
            if (self.equals(newLeaderId)) {
                if (leading.compareAndSet(false, true)) {
                    PeerProtocol.leader(System.out);
                }
            } else if (leading.compareAndSet(true, false)) {
                PeerProtocol.follower(System.out);
            }
        }

        boolean isLeading() {
            return leading.get();
        }
    }

    /**
     * Runs the server until SIGTERM.
     *
     * @param args id, storage directory, group UUID, the peers
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: RatisNode ID STORAGE_DIR GROUP_UUID ID=HOST:PORT,...");
            System.exit(2);
        }
        RaftPeerId self = RaftPeerId.valueOf(args[0]);
        Path storage = Path.of(args[1]);
        RaftGroupId groupId = RaftGroupId.valueOf(UUID.fromString(args[2]));
        List<RaftPeer> peers = new ArrayList<>();
        int port = -1;
        for (String peer : args[3].split(",")) {
            String[] idAddress = peer.split("=", 2);
            peers.add(RaftPeer.newBuilder()
                    .setId(idAddress[0])
                    .setAddress(idAddress[1])
                    .build());
            if (idAddress[0].equals(args[0])) {
                port = Integer.parseInt(idAddress[1].substring(idAddress[1].lastIndexOf(':') + 1));
            }
        }
        RaftGroup group = RaftGroup.valueOf(groupId, peers);
        RaftProperties properties = new RaftProperties();
        RaftServerConfigKeys.setStorageDir(properties, List.of(storage.toFile()));
        GrpcConfigKeys.Server.setPort(properties, port);
        // A restarted server recovers the storage it formatted on its first start.
        boolean formatted = Files.isDirectory(storage.resolve(groupId.getUuid().toString()));
        LeaderReporting stateMachine = new LeaderReporting(self);
        RaftServer server = RaftServer.newBuilder()
                .setServerId(self)
                .setGroup(group)
                .setProperties(properties)
                .setStateMachine(stateMachine)
                .setOption(formatted ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT)
                .build();
        server.start();
        RaftPeerId successor = successor(peers, self);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (stateMachine.isLeading()) {
                try {
                    // The admin call a client would send, made on the server itself: no client, no connection.
                    server.transferLeadership(
                            new TransferLeadershipRequest(ClientId.randomId(), self, groupId, 1, successor, 3000));
                } catch (Exception e) {
                    System.err.println(args[0] + ": transferLeadership failed: " + e);
                }
            }
            try {
                server.close();
            } catch (Exception e) {
                System.err.println(args[0] + ": close failed: " + e);
            }
            stopped.countDown();
        }));
        PeerProtocol.ready(System.out, args[0]);
        stopped.await();
    }

    private static RaftPeerId successor(List<RaftPeer> peers, RaftPeerId self) {
        for (int i = 0; i < peers.size(); i++) {
            if (peers.get(i).getId().equals(self)) {
                return peers.get((i + 1) % peers.size()).getId();
            }
        }
        throw new IllegalArgumentException(self + " is not among the peers");
    }
}
