package io.bellwether.bench;

import io.bellwether.server.cli.Main;
import io.bellwether.server.demo.LocalCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A {@code bellwether run} child JVM of the benchmarks, on this JVM's class path, with the demo's node options. */
final class RunnerProcess {
    private RunnerProcess() {}

    /**
     * Starts {@code bellwether run --config CONFIG -- sh -c "cd DIR; SCRIPT"}.
     *
     * @param name the node's output files in {@code dir}: {@code NAME.out} (the command's output) and {@code
     *     NAME.log} (the node's log)
     */
    static Process start(Path config, Path dir, String script, String name) throws IOException {
        List<String> argv = new ArrayList<>();
        argv.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        argv.addAll(LocalCluster.NODE_JVM_OPTIONS);
        argv.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "run",
                "--config",
                config.toString(),
                "--",
                "sh",
                "-c",
                "cd '" + dir + "' || exit 1; " + script));
        return new ProcessBuilder(argv)
                .redirectOutput(dir.resolve(name + ".out").toFile())
                .redirectError(dir.resolve(name + ".log").toFile())
                .start();
    }
}
