package io.bellwether.state;

import io.bellwether.NodeId;
import java.util.Objects;

/**
 * The rule for election group names, shared by the election builder and the state stores. A group name
 * becomes a file name in {@link FileStateStore}, so it is restricted to characters that are safe in file
 * names everywhere and may not start with a dot (no hidden files, no {@code .} or {@code ..}).
 */
public final class GroupNames {
    /** The allowed form, for error messages. */
    public static final String ALLOWED =
            "1-64 characters of letters, digits, '.', '_' and '-', starting with a letter or digit";

    private GroupNames() {}

    /**
     * Returns {@code group} if it is a valid group name.
     *
     * @param key the configuration key to name in the error
     * @throws IllegalArgumentException naming the key, the value and the allowed form
     */
    public static String check(String key, String group) {
        Objects.requireNonNull(group, key);
        if (!isValid(group)) {
            throw new IllegalArgumentException(key + " = '" + group + "' is invalid: use " + ALLOWED);
        }
        return group;
    }

    /**
     * {@code [A-Za-z0-9][A-Za-z0-9._-]{0,63}}: a valid node id ({@link NodeId#isValid}, checked without a regular
     * expression, as the transport checks every frame's names) that starts with a letter or digit.
     */
    private static boolean isValid(String s) {
        if (!NodeId.isValid(s)) {
            return false;
        }
        char first = s.charAt(0);
        return first != '.' && first != '_' && first != '-';
    }
}
