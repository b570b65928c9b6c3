package io.bellwether.store.jdbc;

import java.util.Locale;
import java.util.regex.Pattern;

/** JDBC URL helpers: nothing derived from a URL for logs or messages ever carries a password. */
final class JdbcUrls {
    private static final Pattern PASSWORD_PARAM = Pattern.compile("(?i)(password\\s*=)[^&;]*");
    private static final Pattern USER_INFO = Pattern.compile("//([^/@?;]*?):([^/@?;]*)@");

    private JdbcUrls() {}

    /** The URL with every password (query parameter or {@code user:password@}) replaced by {@code ***}. */
    static String redact(String url) {
        String withoutParams = PASSWORD_PARAM.matcher(url).replaceAll("$1***");
        return USER_INFO.matcher(withoutParams).replaceAll("//$1:***@");
    }

    /**
     * A short name for the database: {@code 127.0.0.1:5432/test} for network URLs, {@code mem:name} or the file
     * path for H2.
     */
    static String location(String url) {
        String rest = url;
        if (rest.toLowerCase(Locale.ROOT).startsWith("jdbc:")) {
            rest = rest.substring(5);
        }
        int colon = rest.indexOf(':');
        rest = colon >= 0 ? rest.substring(colon + 1) : rest;
        if (rest.startsWith("//")) {
            rest = rest.substring(2);
            int at = rest.indexOf('@');
            int slash = rest.indexOf('/');
            if (at >= 0 && (slash < 0 || at < slash)) {
                rest = rest.substring(at + 1);
            }
        }
        int end = rest.length();
        for (char c : new char[] {'?', ';'}) {
            int i = rest.indexOf(c);
            if (i >= 0 && i < end) {
                end = i;
            }
        }
        return rest.substring(0, end);
    }
}
