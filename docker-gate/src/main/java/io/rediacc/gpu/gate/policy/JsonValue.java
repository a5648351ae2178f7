package io.rediacc.gpu.gate.policy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A JSON value as read by {@link GoJsonReader}: numbers keep their text so Go's typing rules can be applied later. */
sealed interface JsonValue permits JsonValue.JsonObject, JsonValue.JsonArray, JsonValue.JsonString,
        JsonValue.JsonNumber, JsonValue.JsonBool, JsonValue.JsonNull {

    /** What the value is, for messages ("a string", "an object"...). */
    String describe();

    /** One key/value pair, in document order; {@code key} is the decoded key. */
    record Member(String key, JsonValue value) {
    }

    /**
     * An object; members keep document order. Field lookup follows Go: every key that folds to the
     * field's name lands in that field, so a lookup that finds more than one is ambiguous.
     */
    final class JsonObject implements JsonValue {
        private final List<Member> members = new ArrayList<>();
        private final Map<String, List<Member>> byFoldedKey = new HashMap<>();

        /** Adds a member; returns the earlier members whose key folds to the same name. */
        List<Member> add(Member member) {
            List<Member> same = byFoldedKey.computeIfAbsent(GoJsonFolding.fold(member.key()), k -> new ArrayList<>(1));
            List<Member> earlier = List.copyOf(same);
            same.add(member);
            members.add(member);
            return earlier;
        }

        List<Member> members() {
            return Collections.unmodifiableList(members);
        }

        /**
         * The value Go would decode into the struct field {@code fieldName}, or null when absent.
         * {@code path} names the field in messages.
         */
        JsonValue field(String fieldName, String path) {
            List<Member> matches = byFoldedKey.get(GoJsonFolding.fold(fieldName));
            if (matches == null || matches.isEmpty()) {
                return null;
            }
            if (matches.size() > 1) {
                throw PolicyRefusal.badRequest(RefusalMessages.RULE_DUPLICATE_KEY,
                        RefusalMessages.duplicateKey(path, matches.get(0).key(), matches.get(1).key()));
            }
            return matches.get(0).value();
        }

        @Override
        public String describe() {
            return "an object";
        }
    }

    record JsonArray(List<JsonValue> elements) implements JsonValue {
        @Override
        public String describe() {
            return "an array";
        }
    }

    record JsonString(String value) implements JsonValue {
        @Override
        public String describe() {
            return "a string";
        }
    }

    /** A number exactly as written; it already matched JSON's number grammar. */
    record JsonNumber(String text) implements JsonValue {
        @Override
        public String describe() {
            return "the number " + text;
        }
    }

    record JsonBool(boolean value) implements JsonValue {
        @Override
        public String describe() {
            return value ? "true" : "false";
        }
    }

    record JsonNull() implements JsonValue {
        static final JsonNull INSTANCE = new JsonNull();

        @Override
        public String describe() {
            return "null";
        }
    }
}
