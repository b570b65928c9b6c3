package io.bellwether.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/** What a failing multi-process test prints so that a CI log alone says why: the last lines of each node's log. */
public final class Logs {
    private Logs() {}

    /** The last {@code lines} lines of each file in {@code dir}, each under a header naming it. */
    private static String tails(Path dir, List<String> files, int lines) {
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

    /**
     * The failure of a wait for nodes to agree: {@code what} was awaited, each node's last answer ({@code
     * lastViews}, by node id), then the end of each node's log ({@code <id>.log} in {@code dir}).
     *
     * @param what what was awaited
     * @param lastViews each node's last answer, by node id
     * @param dir the directory holding the nodes' logs
     * @param nodes the node ids whose logs to show
     * @param cause the failure of the wait (a timeout, usually)
     * @return the error to throw, with all of the above in its message
     */
    public static AssertionError noAgreement(
            String what, Map<String, ?> lastViews, Path dir, Collection<String> nodes, Throwable cause) {
        StringBuilder why = new StringBuilder(what).append("; last views:");
        lastViews.forEach(
                (id, view) -> why.append("\n  ").append(id).append(": ").append(view));
        why.append(tails(dir, nodes.stream().map(id -> id + ".log").toList(), 30));
        return new AssertionError(why.toString(), cause);
    }
}
