package io.bellwether.server.config;

import java.util.Collection;
import java.util.Optional;

/** Suggests the allowed word closest to a misspelt one, for error messages. */
final class DidYouMean {
    private DidYouMean() {}

    /** The closest of {@code allowed} to {@code word}, if it is close enough to be a likely typo. */
    static Optional<String> closest(String word, Collection<String> allowed) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : allowed) {
            int d = distance(word.toLowerCase(), candidate);
            if (d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
        int tolerance = Math.max(2, word.length() / 3);
        return bestDistance <= tolerance ? Optional.ofNullable(best) : Optional.empty();
    }

    /** Levenshtein distance. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
            }
            int[] t = previous;
            previous = current;
            current = t;
        }
        return previous[b.length()];
    }
}
