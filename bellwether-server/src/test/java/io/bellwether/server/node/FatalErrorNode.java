package io.bellwether.server.node;

import io.bellwether.ElectionListener;
import io.bellwether.Leadership;
import io.bellwether.server.config.ConfigLoader;
import java.nio.file.Path;

/**
 * A node process (as {@code bellwether node} runs it: the daemon's fatal-error handler installed first) whose
 * listener throws an {@link OutOfMemoryError} on the election's notifier thread once it is elected: {@code
 * FatalErrorNode CONFIG}. It must not live on; {@link NodeDaemonFatalErrorTest} checks that it halts.
 */
public final class FatalErrorNode {
    private FatalErrorNode() {}

    public static void main(String[] args) throws Exception {
        NodeDaemon.haltOnFatalError();
        NodeDaemon daemon = NodeDaemon.start(ConfigLoader.load(Path.of(args[0])));
        daemon.election().addListener(new ElectionListener() {
            @Override
            public void elected(Leadership leadership) {
                throw new OutOfMemoryError("injected by the test at epoch " + leadership.epoch());
            }
        });
        System.out.println("fatal-error node started on " + daemon.url());
        Thread.sleep(Long.MAX_VALUE); // until halted (or killed by the test)
    }
}
