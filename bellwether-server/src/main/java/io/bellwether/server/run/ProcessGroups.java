package io.bellwether.server.run;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Reads the process table ({@code /proc}, Linux): which processes belong to a process group. Java sees a process's
 * pid, not its group, and a command's children are not the runner's.
 */
final class ProcessGroups {
    private static final Path PROC = Path.of("/proc");

    /** How long a wait for a group sleeps between two readings of the process table. */
    static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private ProcessGroups() {}

    /** The process group of {@code pid}, or empty if it has ended (a zombie counts as ended). */
    static OptionalLong groupOf(long pid) {
        Stat s = stat(PROC.resolve(Long.toString(pid)));
        return s == null || s.ended() ? OptionalLong.empty() : OptionalLong.of(s.group());
    }

    /** The pids of the live processes in group {@code pgid} (zombies run nothing and are left out). */
    static List<Long> members(long pgid) {
        List<Long> pids = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(PROC, "[0-9]*")) {
            for (Path dir : dirs) {
                Stat s = stat(dir);
                if (s != null && !s.ended() && s.group() == pgid) {
                    pids.add(Long.parseLong(dir.getFileName().toString()));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the process table in " + PROC + ": " + e, e);
        }
        return pids;
    }

    /** Whether any live process is in group {@code pgid}. */
    static boolean alive(long pgid) {
        return !members(pgid).isEmpty();
    }

    /** Waits until {@code pid} leads its own process group, or {@code deadlineNanos} passes; true if it does. */
    static boolean awaitOwnGroup(long pid, long deadlineNanos) {
        while (true) {
            OptionalLong group = groupOf(pid);
            if (group.isEmpty()) {
                return false;
            }
            if (group.getAsLong() == pid) {
                return true;
            }
            if (System.nanoTime() - deadlineNanos >= 0) {
                return false;
            }
            LockSupport.parkNanos(POLL_NANOS / 4);
        }
    }

    private record Stat(char state, long group) {
        boolean ended() {
            return state == 'Z' || state == 'X' || state == 'x';
        }
    }

    /** Fields 3 (state) and 5 (pgrp) of {@code /proc/PID/stat}; null if the process is gone. */
    private static Stat stat(Path dir) {
        String line;
        try {
            line = Files.readString(dir.resolve("stat"), StandardCharsets.ISO_8859_1);
        } catch (IOException | SecurityException e) {
            return null;
        }
        // The command name (field 2) is in parentheses and may itself hold spaces and parentheses.
        int close = line.lastIndexOf(')');
        if (close < 0 || close + 2 >= line.length()) {
            return null;
        }
        String[] fields = line.substring(close + 2).split(" ", 5);
        if (fields.length < 4) {
            return null;
        }
        try {
            return new Stat(fields[0].charAt(0), Long.parseLong(fields[2]));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
