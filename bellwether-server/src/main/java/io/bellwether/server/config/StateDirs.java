package io.bellwether.server.config;

import java.nio.file.Files;
import java.nio.file.Path;

/** Whether a {@code state-dir} can be used, checked when the configuration is read, before anything starts. */
final class StateDirs {
    private StateDirs() {}

    /**
     * What stops this process from using (or creating) {@code dir}, or null if nothing does. Nothing is created:
     * reading a configuration changes nothing on disk.
     */
    static String problem(Path dir) {
        if (Files.isDirectory(dir)) {
            return Files.isWritable(dir) ? null : "is not writable by this process";
        }
        if (Files.exists(dir)) {
            return "is not a directory";
        }
        Path existing = dir.getParent();
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return null;
        }
        if (!Files.isDirectory(existing)) {
            return "cannot be created: " + existing + " is not a directory";
        }
        if (!Files.isWritable(existing)) {
            return "cannot be created: " + existing + " is not writable by this process";
        }
        return null;
    }
}
