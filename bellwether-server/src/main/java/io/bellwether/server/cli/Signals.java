package io.bellwether.server.cli;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns SIGTERM and SIGINT into an orderly stop with exit status 0.
 *
 * <p>A plain shutdown hook cannot do that: the JVM runs hooks on SIGTERM but then exits with 143. So the
 * signals are handled (through {@code sun.misc.Signal}, which every mainstream JDK has) by running {@code stop}
 * on the thread the JVM starts for each signal: the node command closes the node there and then lets the main
 * thread return 0. A shutdown hook stays as the fallback, for JVMs without signal handling and for other ways
 * of stopping (System.exit elsewhere, SIGHUP).
 */
final class Signals {
    private static final Logger log = LoggerFactory.getLogger(Signals.class);

    private Signals() {}

    static void onTermination(Runnable stop, Runnable hook) {
        Runtime.getRuntime().addShutdownHook(new Thread(hook, "bellwether-shutdown"));
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                sun.misc.Signal.handle(new sun.misc.Signal(name), signal -> stop.run());
            } catch (IllegalArgumentException | UnsupportedOperationException | LinkageError e) {
                log.warn(
                        "cannot handle SIG{} ({}); it will stop the node through the shutdown hook",
                        name,
                        e.toString());
            }
        }
    }
}
