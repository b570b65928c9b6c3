package io.bellwether.server.config;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * The lease store's credentials given beside its address ({@code lease.username}, {@code lease.password-file}):
 * reading the password file, and telling whether the address already carries a user or a password. No message
 * here ever holds the password.
 */
final class LeaseCredentials {
    /** The largest password file read: a password, not a document. */
    static final int MAX_PASSWORD_BYTES = 4096;

    private static final Pattern JDBC_PASSWORD = Pattern.compile("(?i)([?&;]password\\s*=|//[^/@?;]*:[^/@?;]*@)");
    private static final Pattern JDBC_USER = Pattern.compile("(?i)([?&;]user\\s*=|//[^/@?;]+@)");
    // redis://password@host or redis://user:password@host: whatever precedes the host holds a password.
    private static final Pattern REDIS_PASSWORD = Pattern.compile("//[^/@]+@");
    private static final Pattern REDIS_USER = Pattern.compile("//[^/@:]+:[^/@]*@");

    private LeaseCredentials() {}

    /** Whether the store's address carries a password. */
    static boolean passwordIn(String store) {
        return (LeaseSettings.isRedis(store) ? REDIS_PASSWORD : JDBC_PASSWORD)
                .matcher(store)
                .find();
    }

    /** Whether the store's address names a user. */
    static boolean userIn(String store) {
        return (LeaseSettings.isRedis(store) ? REDIS_USER : JDBC_USER)
                .matcher(store)
                .find();
    }

    /** A password read from a file, or why it cannot be used (never the file's content). */
    record Read(String password, String problem) {
        @Override
        public String toString() {
            return problem != null ? "Read{problem=" + problem + "}" : "Read{password=(not shown)}";
        }
    }

    /**
     * The password in {@code file}: its text, as UTF-8, less trailing newlines (a file written with {@code echo}
     * ends in one).
     */
    static Read passwordFile(Path file) {
        byte[] bytes;
        try {
            if (!Files.isRegularFile(file)) {
                return new Read(null, Files.exists(file) ? "is not a regular file" : "does not exist");
            }
            if (Files.size(file) > MAX_PASSWORD_BYTES) {
                return new Read(null, "holds more than " + MAX_PASSWORD_BYTES + " bytes");
            }
            bytes = Files.readAllBytes(file);
        } catch (IOException | SecurityException e) {
            return new Read(null, "cannot be read (" + e.getClass().getSimpleName() + ")");
        }
        int end = bytes.length;
        while (end > 0 && (bytes[end - 1] == '\n' || bytes[end - 1] == '\r')) {
            end--;
        }
        if (end == 0) {
            return new Read(null, "is empty" + (bytes.length > 0 ? " (but for newlines)" : ""));
        }
        try {
            String password = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(bytes, 0, end))
                    .toString();
            return new Read(password, null);
        } catch (CharacterCodingException e) {
            return new Read(null, "is not UTF-8 text");
        }
    }
}
