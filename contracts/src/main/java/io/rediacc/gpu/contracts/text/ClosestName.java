package io.rediacc.gpu.contracts.text;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;

/** Finds the known name a misspelt one was probably meant to be: a grantable CDI name, a manifest key. */
public final class ClosestName {

    private ClosestName() {
    }

    /** The name nearest to {@code wanted} when it is close enough to look like a typo of it. */
    public static Optional<String> among(String wanted, Collection<String> names) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String name : names) {
            int d = name.equalsIgnoreCase(wanted) ? 0 : distance(wanted, name);
            if (d < bestDistance || (d == bestDistance && best != null && name.compareTo(best) < 0)) {
                best = name;
                bestDistance = d;
            }
        }
        // a typo changes a few characters; beyond that a "did you mean" would mislead
        int allowed = Math.max(2, wanted.length() / 5);
        return best != null && bestDistance <= allowed ? Optional.of(best) : Optional.empty();
    }

    /** The {@code limit} names nearest to {@code wanted}, nearest first (ties by name), however far. */
    public static java.util.List<String> nearest(String wanted, Collection<String> names, int limit) {
        return names.stream()
                .map(name -> java.util.Map.entry(name, name.equalsIgnoreCase(wanted) ? 0 : distance(wanted, name)))
                .sorted(java.util.Map.Entry.<String, Integer>comparingByValue().thenComparing(java.util.Map.Entry.comparingByKey()))
                .limit(limit).map(java.util.Map.Entry::getKey).toList();
    }

    /** Levenshtein distance, case-insensitive (CDI names and keys are case-sensitive, typos often are not). */
    static int distance(String a, String b) {
        String x = a.toLowerCase(Locale.ROOT);
        String y = b.toLowerCase(Locale.ROOT);
        int[] previous = new int[y.length() + 1];
        int[] current = new int[y.length() + 1];
        for (int j = 0; j <= y.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= x.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= y.length(); j++) {
                int cost = x.charAt(i - 1) == y.charAt(j - 1) ? 0 : 1;
                current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[y.length()];
    }
}
