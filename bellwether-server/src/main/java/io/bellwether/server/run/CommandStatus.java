package io.bellwether.server.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.List;

/**
 * What the command is doing, for {@code GET /status} (the {@code command} object) and {@code GET /metrics}
 * ({@code bellwether_command_*}). Written by the runner's thread, read by the HTTP server's.
 */
final class CommandStatus {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<String> command;
    private final Counter starts;
    private final Counter restarts;
    private final Counter exitsOk;
    private final Counter exitsFailed;
    private final Counter killed;
    private final Counter late;

    private volatile Running running;
    private volatile Exit lastExit;
    private volatile Stop lastStop;
    private volatile long restartCount;

    private record Running(long pid, long epoch, Instant since) {}

    private record Exit(int status, long epoch, Instant at) {}

    private record Stop(long epoch, Instant at, boolean killed, long sigkillAfterMs, long beforeValidUntilMs) {}

    CommandStatus(List<String> command, MeterRegistry registry) {
        this.command = List.copyOf(command);
        Gauge.builder("bellwether.command.running", this, s -> s.running != null ? 1 : 0)
                .description("1 while the command runs (this node leads), else 0")
                .register(registry);
        starts = Counter.builder("bellwether.command.starts")
                .description("Times the command was started, restarts included")
                .register(registry);
        restarts = Counter.builder("bellwether.command.restarts")
                .description("Times the command was started again within one leadership (--on-exit restart)")
                .register(registry);
        exitsOk = exits(registry, "success");
        exitsFailed = exits(registry, "failure");
        killed = Counter.builder("bellwether.command.killed")
                .description("Stops that needed SIGKILL: the command's group outlived the grace after SIGTERM")
                .register(registry);
        late = Counter.builder("bellwether.command.stops.late")
                .description("Stops at which the command's group was still alive when the leadership's validity"
                        + " ended (should stay 0)")
                .register(registry);
    }

    private static Counter exits(MeterRegistry registry, String outcome) {
        return Counter.builder("bellwether.command.exits")
                .description("Times the command exited on its own while this node led, by outcome (status 0 or not)")
                .tag("outcome", outcome)
                .register(registry);
    }

    void started(long pid, long epoch, boolean restart) {
        running = new Running(pid, epoch, Instant.now());
        starts.increment();
        if (restart) {
            restartCount++;
            restarts.increment();
        }
    }

    void exited(int status, long epoch) {
        running = null;
        lastExit = new Exit(status, epoch, Instant.now());
        (status == 0 ? exitsOk : exitsFailed).increment();
    }

    /**
     * The command was stopped as a leadership ended (or the node stopped).
     *
     * @param beforeValidUntilNanos how long before the leadership's validity ended the group was seen gone
     *     (negative: after)
     */
    void stopped(long epoch, GroupProcess.Stopped stopped, long beforeValidUntilNanos) {
        running = null;
        long sigkillAfterMs = stopped.killed() ? (stopped.killNanos() - stopped.termNanos()) / 1_000_000 : -1;
        lastStop = new Stop(epoch, Instant.now(), stopped.killed(), sigkillAfterMs, beforeValidUntilNanos / 1_000_000);
        if (stopped.killed()) {
            killed.increment();
        }
        if (beforeValidUntilNanos < 0) {
            late.increment();
        }
    }

    boolean running() {
        return running != null;
    }

    /** The {@code command} object of {@code GET /status}. */
    JsonNode json() {
        ObjectNode json = JSON.createObjectNode();
        command.forEach(json.withArray("argv")::add);
        Running r = running;
        json.put("running", r != null);
        json.put("pid", r == null ? null : r.pid());
        json.put("epoch", r == null ? null : r.epoch());
        json.put("since", r == null ? null : r.since().toString());
        json.put("restarts", restartCount);
        Exit e = lastExit;
        if (e == null) {
            json.putNull("lastExit");
        } else {
            ObjectNode exit = json.putObject("lastExit");
            exit.put("status", e.status());
            exit.put("epoch", e.epoch());
            exit.put("at", e.at().toString());
        }
        Stop s = lastStop;
        if (s == null) {
            json.putNull("lastStop");
        } else {
            ObjectNode stop = json.putObject("lastStop");
            stop.put("epoch", s.epoch());
            stop.put("at", s.at().toString());
            stop.put("killed", s.killed());
            if (s.killed()) {
                stop.put("sigkillAfterMs", s.sigkillAfterMs());
            }
            stop.put("goneBeforeValidUntilMs", s.beforeValidUntilMs());
        }
        return json;
    }
}
