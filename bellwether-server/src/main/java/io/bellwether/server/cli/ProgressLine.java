package io.bellwether.server.cli;

import io.bellwether.sim.RandomExplorer;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * A single progress line on a terminal, rewritten in place with a carriage return. Thread-safe: the
 * explorer may report from its worker threads.
 */
final class ProgressLine implements Consumer<RandomExplorer.Progress> {
    private static final long MIN_INTERVAL_NANOS = 200_000_000L;

    private final PrintWriter err;
    private long lastPrintNanos = Long.MIN_VALUE;
    private int lastLength;

    ProgressLine(PrintWriter err) {
        this.err = err;
    }

    @Override
    public synchronized void accept(RandomExplorer.Progress p) {
        long now = System.nanoTime();
        boolean finished = p.seedsDone() >= p.seedsTotal();
        if (!finished && lastPrintNanos != Long.MIN_VALUE && now - lastPrintNanos < MIN_INTERVAL_NANOS) {
            return;
        }
        lastPrintNanos = now;
        String line = format(p);
        StringBuilder sb = new StringBuilder("\r").append(line);
        for (int i = line.length(); i < lastLength; i++) {
            sb.append(' ');
        }
        lastLength = line.length();
        err.print(sb);
        err.flush();
    }

    /** Clears the line so that the report starts on a clean one. */
    synchronized void clear() {
        if (lastLength > 0) {
            err.print("\r" + " ".repeat(lastLength) + "\r");
            err.flush();
            lastLength = 0;
        }
    }

    static String format(RandomExplorer.Progress p) {
        String eta;
        if (p.seedsDone() == 0) {
            eta = "?";
        } else {
            double perSeed = (double) p.elapsedNanos() / p.seedsDone();
            long remainingSeconds = Math.round(perSeed * (p.seedsTotal() - p.seedsDone()) / 1e9);
            eta = remainingSeconds >= 60
                    ? String.format(Locale.ROOT, "%dm%02ds", remainingSeconds / 60, remainingSeconds % 60)
                    : remainingSeconds + "s";
        }
        return String.format(
                Locale.ROOT,
                "seeds %d/%d, violations %d, about %s left",
                p.seedsDone(),
                p.seedsTotal(),
                p.violations(),
                eta);
    }
}
