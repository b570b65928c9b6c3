package io.bellwether.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The process table, as tests and benchmarks of process supervision read it (Linux {@code /proc}). */
public final class Processes {
    private Processes() {}

    /**
     * Whether {@code pid} runs: its {@code /proc} entry exists and is neither a zombie nor dead. A zombie counts as
     * gone: it runs nothing and only waits for its parent (or init) to collect its status.
     */
    public static boolean running(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            char state = stat.charAt(stat.lastIndexOf(')') + 2);
            return state != 'Z' && state != 'X';
        } catch (IOException e) {
            return false;
        }
    }
}
