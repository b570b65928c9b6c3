package io.bellwether.server.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Optional;

/** Reads how peer traffic is authenticated: {@code secret}, {@code secret-file} or {@code insecure}. */
final class SecretSection {
    static final int MIN_SECRET_BYTES = 16;

    /**
     * The shared secret, or none with {@code insecure} (or, with a lease, when none is given).
     *
     * @param secret the secret's bytes
     * @param insecure whether peer traffic runs without authentication
     */
    record Secret(Optional<byte[]> secret, boolean insecure) {}

    private SecretSection() {}

    /** Reads the secret; {@code lease}: whether the algorithm is lease, whose nodes need none. */
    static Secret read(ConfigValues top, boolean lease) {
        Optional<byte[]> secret = Optional.empty();
        boolean hasSecret = top.has("secret");
        boolean hasSecretFile = top.has("secret-file");
        boolean insecure = Boolean.TRUE.equals(top.bool("insecure"));
        if (hasSecret && hasSecretFile) {
            top.error("secret and secret-file are both given: allowed one of them");
        } else if ((hasSecret || hasSecretFile) && insecure) {
            top.error("insecure = true contradicts " + (hasSecret ? "secret" : "secret-file")
                    + ": allowed either a secret or insecure: true");
        } else if (hasSecret) {
            String text = top.text("secret", "a text of at least " + MIN_SECRET_BYTES + " bytes");
            if (text != null) {
                byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
                if (bytes.length < MIN_SECRET_BYTES) {
                    top.error("secret = (" + bytes.length + " bytes, not shown) is too short: allowed at least "
                            + MIN_SECRET_BYTES + " bytes");
                } else {
                    secret = Optional.of(bytes);
                }
            }
        } else if (hasSecretFile) {
            secret = secretFile(top);
        } else if (!insecure && !lease) {
            top.error("secret-file is missing: give secret-file (a file holding at least " + MIN_SECRET_BYTES
                    + " bytes shared by all nodes), secret, or, knowingly, insecure: true");
        }
        return new Secret(secret, insecure);
    }

    private static Optional<byte[]> secretFile(ConfigValues top) {
        String text = top.text("secret-file", "the path of a file holding at least " + MIN_SECRET_BYTES + " bytes");
        if (text == null) {
            return Optional.empty();
        }
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(top.path(text));
        } catch (IOException | SecurityException e) {
            top.error("secret-file = '" + text + "' cannot be read (" + ConfigLoader.describe(e)
                    + "): allowed a readable file holding at least " + MIN_SECRET_BYTES + " bytes");
            return Optional.empty();
        }
        // Files written with echo end in a newline that other tools would not add; the key is the text before it.
        int end = bytes.length;
        while (end > 0 && (bytes[end - 1] == '\n' || bytes[end - 1] == '\r')) {
            end--;
        }
        if (end < MIN_SECRET_BYTES) {
            top.error("secret-file = '" + text + "' holds " + end + " bytes (trailing newlines not counted), too"
                    + " short: allowed at least " + MIN_SECRET_BYTES + " bytes");
            return Optional.empty();
        }
        return Optional.of(Arrays.copyOf(bytes, end));
    }
}
