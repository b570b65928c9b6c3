package io.bellwether.micrometer;

import io.bellwether.transport.tcp.TcpTransport;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Publishes a {@link TcpTransport}'s traffic to Micrometer, with the names the {@code bellwether node} daemon serves
 * at {@code /metrics}: give it to the transport's builder as its observer, and bind it to the registry.
 *
 * <pre>{@code
 * TransportMetrics traffic = new TransportMetrics(Tags.empty());
 * traffic.messageTypes(algorithm.codec().messageTypes());   // optional: every series from zero
 * TcpTransport transport = TcpTransport.builder()...observer(traffic).build();
 * traffic.bindTo(registry);
 * }</pre>
 *
 * <ul>
 *   <li>{@value #MESSAGES} ({@code bellwether_messages_total{direction,type}}): peer messages sent ({@code out}) and
 *       delivered ({@code in}), by message type;
 *   <li>{@value #REJECTED_FRAMES} ({@code bellwether_rejected_frames_total{reason}}): frames and connections the
 *       transport refused, by reason ({@link TcpTransport.Observer#frameRejected}); a {@code reason="none"} series
 *       is there from the start, so that an alert on the rate sees a zero rather than no series.
 * </ul>
 *
 * <p>Every meter carries the tags given to the constructor (a transport serves every group of the process, so
 * there is no {@code group} tag). Traffic before the first {@link #bindTo} is not counted anywhere; binding to
 * several registries gives each its own counters. Thread-safe; each callback is a map lookup and an increment per
 * registry, quick enough for the transport's event loop.
 */
public final class TransportMetrics implements TcpTransport.Observer, MeterBinder {
    /** Counter: peer messages, tags {@code direction} ({@code in}, {@code out}) and {@code type}. */
    public static final String MESSAGES = "bellwether.messages";
    /** Counter: frames and connections the transport refused, tag {@code reason}. */
    public static final String REJECTED_FRAMES = "bellwether.rejected.frames";

    private final Tags tags;
    private final Set<String> knownTypes = ConcurrentHashMap.newKeySet();
    private final List<Bound> bound = new CopyOnWriteArrayList<>();

    /** Counters tagged with {@code tags} (besides the registry's common tags). */
    public TransportMetrics(Iterable<Tag> tags) {
        this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
    }

    /**
     * Registers the sent and received counters of these message types at binding rather than at each type's first
     * message: a registration takes a lock and builds the series, and for a message sent only on a failover (a
     * cession, a proposal) that first message is on the failover's critical path. The series also show a zero from
     * the start. Call it before {@link #bindTo}; types added later are registered on the registries bound already.
     */
    public void messageTypes(Collection<String> types) {
        knownTypes.addAll(types);
        for (Bound b : bound) {
            types.forEach(b::register);
        }
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Bound b = new Bound(Objects.requireNonNull(registry, "registry"));
        knownTypes.forEach(b::register);
        b.rejected("none");
        bound.add(b);
    }

    @Override
    public void messageSent(String type) {
        for (Bound b : bound) {
            b.sent.computeIfAbsent(type, t -> b.messages("out", t)).increment();
        }
    }

    @Override
    public void messageReceived(String type) {
        for (Bound b : bound) {
            b.received.computeIfAbsent(type, t -> b.messages("in", t)).increment();
        }
    }

    @Override
    public void frameRejected(String reason) {
        for (Bound b : bound) {
            b.rejected(reason).increment();
        }
    }

    /** The counters on one registry. */
    private final class Bound {
        final MeterRegistry registry;
        final Map<String, Counter> sent = new ConcurrentHashMap<>();
        final Map<String, Counter> received = new ConcurrentHashMap<>();
        final Map<String, Counter> rejected = new ConcurrentHashMap<>();

        Bound(MeterRegistry registry) {
            this.registry = registry;
        }

        void register(String type) {
            sent.computeIfAbsent(type, t -> messages("out", t));
            received.computeIfAbsent(type, t -> messages("in", t));
        }

        Counter messages(String direction, String type) {
            return Counter.builder(MESSAGES)
                    .description("Peer messages by direction (in, out) and type")
                    .tags(tags)
                    .tags("direction", direction, "type", type)
                    .register(registry);
        }

        Counter rejected(String reason) {
            return rejected.computeIfAbsent(reason, r -> Counter.builder(REJECTED_FRAMES)
                    .description("Peer frames and connections refused by the transport, by reason")
                    .tags(tags)
                    .tag("reason", r)
                    .register(registry));
        }
    }
}
