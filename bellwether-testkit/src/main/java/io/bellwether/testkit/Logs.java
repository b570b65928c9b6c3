package io.bellwether.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** What a failing multi-process test prints so that a CI log alone says why: the last lines of each node's log. */
public final class Logs {
    private Logs() {}

    /** The last {@code lines} lines of each file in {@code dir}, each under a header naming it. */
    public static String tails(Path dir, List<String> files, int lines) {
        StringBuilder out = new StringBuilder();
        for (String file : files) {
            out.append("\n--- last ")
                    .append(lines)
                    .append(" lines of ")
                    .append(file)
                    .append(":\n");
            try {
                List<String> all = Files.readAllLines(dir.resolve(file), StandardCharsets.UTF_8);
                out.append(String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size())));
            } catch (IOException e) {
                out.append("(unreadable: ").append(e).append(')');
            }
        }
        return out.toString();
    }
}
