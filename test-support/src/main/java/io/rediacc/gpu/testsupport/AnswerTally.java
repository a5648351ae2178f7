package io.rediacc.gpu.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.ArrayList;
import java.util.List;

/**
 * Counts a fuzz run's answers by status class and keeps every one that breaks rule 8: a 5xx, or a
 * 4xx that is not the services' problem answer (application/problem+json with {@code type}, {@code title},
 * {@code detail}, {@code hint}, {@code error} and {@code requestId} set; docs/ERRORS.md).
 * One place for that check, so both services' fuzz tests hold their answers to the same shape.
 */
public final class AnswerTally {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final int[] byClass = new int[6];
    private final List<String> failures = new ArrayList<>();

    public void check(int status, String contentType, String body, String description) {
        byClass[Math.min(status / 100, 5)]++;
        if (status >= 500) {
            failures.add(status + " for " + description + ": " + abbreviate(body));
        } else if (status >= 400) {
            String type = String.valueOf(contentType);
            if (!type.startsWith("application/problem+json") || !errorShaped(body)) {
                failures.add(status + " without the JSON error shape for " + description + ": " + type + " " + abbreviate(body));
            }
        }
    }

    /** Answers of the class, e.g. {@code 4} for 4xx. */
    public int count(int statusClass) {
        return byClass[statusClass];
    }

    /** Every 5xx and every 4xx without the JSON error shape, with the request that caused it. */
    public List<String> failures() {
        return List.copyOf(failures);
    }

    public static String abbreviate(String s) {
        return s.length() > 160 ? s.substring(0, 160) + "…(" + s.length() + " chars)" : s;
    }

    private static boolean errorShaped(String body) {
        try {
            JsonNode node = JSON.readTree(body);
            return node != null && node.isObject() && notBlank(node, "type") && notBlank(node, "title")
                    && notBlank(node, "error") && notBlank(node, "detail") && notBlank(node, "hint") && notBlank(node, "requestId");
        } catch (java.io.IOException notJson) {
            return false;
        }
    }

    private static boolean notBlank(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value != null && value.isTextual() && !value.asText().isBlank();
    }
}
