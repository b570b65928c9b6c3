package io.bellwether.bench.chaos;

import java.util.Optional;

/**
 * A command for {@code bellwether run}: {@code FencedWriter PREFIX} writes {@code ($BELLWETHER_EPOCH,
 * $BELLWETHER_NODE, counter)} through the fence into the {@link FencedLedger} of that prefix on the PostgreSQL on
 * 127.0.0.1, every {@value FencedLedger#PACE_MILLIS} ms, until it is stopped or a write is refused as stale (then it
 * exits with status 3, as a superseded writer should). It checks nothing but the fence: its epoch is all it knows of
 * the leadership.
 */
public final class FencedWriter {
    private FencedWriter() {}

    public static void main(String[] args) throws Exception {
        String epoch = System.getenv("BELLWETHER_EPOCH");
        String node = System.getenv("BELLWETHER_NODE");
        if (args.length != 1 || epoch == null || node == null) {
            System.err.println("usage: FencedWriter PREFIX, run by bellwether run (BELLWETHER_EPOCH and"
                    + " BELLWETHER_NODE set)");
            System.exit(2);
        }
        FencedLedger ledger = new FencedLedger(args[0]);
        long token = Long.parseLong(epoch);
        ledger.recordStart(token, node, FencedWriter.class.getName());
        System.out.println("fenced writer " + node + " at epoch " + token + ", pid "
                + ProcessHandle.current().pid());
        String outcome = ledger.writeLoop(token, node, () -> true, Optional.of(FencedWriter.class.getName()));
        System.out.println("fenced writer " + node + " at epoch " + token + ": " + outcome);
        System.exit(outcome.equals("stale") ? 3 : 0);
    }
}
