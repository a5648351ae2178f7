package io.rediacc.gpu.inventory.repository;

import java.util.Locale;

/** A case-insensitive "contains" pattern for HQL {@code like ... escape '!'}, with wildcards in the input escaped. */
public final class LikePattern {

    public static final String ESCAPE = "!";

    private LikePattern() {
    }

    public static String contains(String text) {
        String escaped = text.toLowerCase(Locale.ROOT)
                .replace("!", "!!")
                .replace("%", "!%")
                .replace("_", "!_");
        return "%" + escaped + "%";
    }
}
