package io.bellwether.server.demo;

import static org.awaitility.Awaitility.await;

import io.bellwether.server.cli.Main;
import io.bellwether.server.cli.MainTest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Runs {@code bellwether demo} in this JVM until its output shows what a test waits for, then stops it as an
 * embedding program would (by interrupting the thread running it). A fixed {@code --duration} would have to cover
 * the nodes' start-up, which takes a second here and a minute on a starved CI machine.
 */
final class DemoRun {
    /** Generous: three cold JVMs and an election on a CI machine that can be ten times slower than a workstation. */
    static final Duration CEILING = Duration.ofSeconds(240);

    private DemoRun() {}

    /** Runs {@code demo args...} until a line of its output matches {@code expected} (or the ceiling), then stops it. */
    static MainTest.Outcome until(Pattern expected, String... args) throws InterruptedException {
        return until(expected, () -> true, args);
    }

    /** As {@link #until(Pattern, String...)}, waiting also until {@code also} holds. */
    static MainTest.Outcome until(Pattern expected, java.util.function.BooleanSupplier also, String... args)
            throws InterruptedException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        AtomicInteger exit = new AtomicInteger(-1);
        String[] command = new String[args.length + 1];
        command[0] = "demo";
        System.arraycopy(args, 0, command, 1, args.length);
        Thread demo = new Thread(
                () -> exit.set(Main.execute(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8),
                        command)),
                "demo-under-test");
        demo.start();
        try {
            await().atMost(CEILING)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> !demo.isAlive()
                            || (expected.matcher(out.toString(StandardCharsets.UTF_8))
                                            .find()
                                    && also.getAsBoolean()));
        } catch (ConditionTimeoutException e) {
            // Stopped below all the same; the caller's assertions say what was missing.
        }
        demo.interrupt();
        demo.join(TimeUnit.SECONDS.toMillis(120));
        if (demo.isAlive()) {
            throw new AssertionError("the demo did not stop within 120 s of being interrupted; output:\n" + out);
        }
        return new MainTest.Outcome(
                exit.get(), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
