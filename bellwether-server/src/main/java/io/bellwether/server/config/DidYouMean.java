package io.bellwether.server.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
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

    /**
     * Where else {@code key} is a valid key, for a key given at the wrong level: its qualified names
     * ({@code quorum.heartbeat-interval}, or the bare key for a top-level one), {@code preferred}'s first.
     *
     * @param sections the keys of each level, the top level under {@code ""}
     * @param here the level the key was found at, left out of the answer
     * @param preferred the section most likely meant (the configured algorithm's)
     */
    static List<String> elsewhere(String key, Map<String, List<String>> sections, String here, String preferred) {
        List<String> homes = new ArrayList<>();
        sections.forEach((section, keys) -> {
            if (!section.equals(here) && keys.contains(key)) {
                String qualified = section.isEmpty() ? key : section + "." + key;
                if (section.equals(preferred)) {
                    homes.add(0, qualified);
                } else {
                    homes.add(qualified);
                }
            }
        });
        return homes;
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
