package io.bellwether.transport.tcp;

import io.netty.channel.EventLoop;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * Tells a member that started over from a second live process with the same id. Both dial in with the member's
 * id and the cluster secret; what differs is the instance number each transport draws at start ({@link Frames}).
 * When a connection from another instance proves itself while the member's working connection is up, that
 * connection is asked for a PONG: if it answers within {@value #PROBE_MILLIS} ms, its process is alive and the
 * newcomer is a duplicate, refused (the working connection stays); if not, the member restarted without its old
 * connection closing (a crashed host sends no FIN), and the newcomer goes on and replaces it.
 *
 * <p>On the transport's I/O thread only.
 */
final class DuplicateIds {
    static final long PROBE_MILLIS = 1_000;

    private final EventLoop loop;
    private final BiConsumer<Connection, Connection> refuse;

    /**
     * @param refuse called with the newcomer and the working connection when the newcomer is a duplicate; it
     *     counts, logs and closes the newcomer
     */
    DuplicateIds(EventLoop loop, BiConsumer<Connection, Connection> refuse) {
        this.loop = loop;
        this.refuse = refuse;
    }

    /**
     * Whether {@code newcomer}, which just proved itself as the member whose working connection is {@code
     * current} (or null), may go on at once; if not, it is later {@linkplain Connection#vouched() vouched for} or
     * refused.
     */
    boolean vouch(Connection newcomer, Connection current) {
        if (current == null
                || current == newcomer
                || current.state() != Connection.State.ESTABLISHED
                || current.peerInstance() == newcomer.peerInstance()) {
            return true;
        }
        boolean[] settled = {false};
        boolean probing = current.probe(() -> {
            if (!settled[0] && newcomer.state() == Connection.State.VOUCHING) {
                settled[0] = true;
                refuse.accept(newcomer, current);
            }
        });
        if (!probing) {
            return true; // backed up: no answer could come in time, so take the newcomer as a restart
        }
        loop.schedule(
                () -> {
                    if (!settled[0]) {
                        settled[0] = true;
                        newcomer.vouched();
                    }
                },
                PROBE_MILLIS,
                TimeUnit.MILLISECONDS);
        return false;
    }
}
