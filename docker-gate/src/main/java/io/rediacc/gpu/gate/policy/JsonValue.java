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
        /** Up to this many members, a key is matched by scanning (no map, no folded copies of keys). */
        private static final int SCAN_LIMIT = 8;

        private final List<Member> members = new ArrayList<>();
        /** {@link GoJsonFolding#foldedHash} of each member's key while the object is small; compared before keys are. */
        private int[] smallHashes;
        /** The first member for each folded key; built once the object outgrows {@link #SCAN_LIMIT}. */
        private FoldedKeys byFoldedKey;
        /** Every member for a folded key that more than one member has; created only then. */
        private Map<String, List<Member>> twins;
        /** Members taken as given ({@link #of}): the index above is built on first use, if ever. */
        private boolean unindexed;

        JsonObject() {
        }

        /**
         * An object of {@code members} in order, indexed (folded keys, twins) only when a field is looked
         * up or a member added: the pin step's rewritten copies of a body's objects are written out, not
         * read, and indexing each copy's keys again was most of the rewrite's time (issue 34).
         */
        static JsonObject of(List<Member> members) {
            JsonObject object = new JsonObject();
            object.members.addAll(members);
            object.unindexed = true;
            return object;
        }

        /** Indexes the members taken as given, as if each had been added in turn. */
        private void index() {
            unindexed = false;
            List<Member> given = new ArrayList<>(members);
            members.clear();
            for (Member m : given) {
                add(m);
            }
        }

        /** Adds a member; returns the earlier members whose key folds to the same name. */
        List<Member> add(Member member) {
            return add(member, GoJsonFolding.foldedHash(member.key()));
        }

        /** {@link #add(Member)} with the key's {@link GoJsonFolding#foldedHash} already computed (the reader's). */
        List<Member> add(Member member, int foldedHash) {
            if (unindexed) {
                index();
            }
            Member first;
            int n = members.size();
            if (byFoldedKey == null && n < SCAN_LIMIT) {
                first = scan(member.key(), foldedHash);
                if (smallHashes == null) {
                    smallHashes = new int[SCAN_LIMIT];
                }
                smallHashes[n] = foldedHash;
            } else {
                if (byFoldedKey == null) {
                    byFoldedKey = new FoldedKeys();
                    for (int i = 0; i < n; i++) {
                        byFoldedKey.putIfAbsent(members.get(i), smallHashes[i]);
                    }
                    smallHashes = null;
                }
                first = byFoldedKey.putIfAbsent(member, foldedHash);
            }
            members.add(member);
            if (first == null) {
                return List.of();
            }
            if (twins == null) {
                twins = new HashMap<>();
            }
            List<Member> same = twins.computeIfAbsent(GoJsonFolding.fold(member.key()), k -> new ArrayList<>(List.of(first)));
            List<Member> earlier = List.copyOf(same);
            same.add(member);
            return earlier;
        }

        /** The first member whose key folds like {@code key} (of folded hash {@code hash}), while the object is small. */
        private Member scan(String key, int hash) {
            for (int i = 0; i < members.size(); i++) {
                if (smallHashes[i] == hash && GoJsonFolding.equalFold(members.get(i).key(), key)) {
                    return members.get(i);
                }
            }
            return null;
        }

        List<Member> members() {
            return Collections.unmodifiableList(members);
        }

        /**
         * The value Go would decode into the struct field {@code fieldName}, or null when absent.
         * {@code path} names the field in messages.
         */
        JsonValue field(String fieldName, String path) {
            return field(fieldName, null, path);
        }

        /**
         * {@link #field(String, String)} with the path {@code parentPath.fieldName}, made only for a message:
         * the rules look up some 20 fields of every HostConfig, and building each path up front was a visible
         * share of a create's CPU (issue 34).
         */
        JsonValue fieldIn(String parentPath, String fieldName) {
            return field(fieldName, parentPath, null);
        }

        private JsonValue field(String fieldName, String parentPath, String path) {
            Member member = member(fieldName, parentPath, path);
            return member == null ? null : member.value();
        }

        /** The member Go decodes into the struct field {@code fieldName} (as {@link #field}), or null. */
        Member member(String fieldName) {
            return member(fieldName, null, fieldName);
        }

        private Member member(String fieldName, String parentPath, String path) {
            if (unindexed) {
                index();
            }
            int hash = GoJsonFolding.foldedHash(fieldName);
            Member first = byFoldedKey == null ? scan(fieldName, hash) : byFoldedKey.get(fieldName, hash);
            if (first == null) {
                return null;
            }
            List<Member> matches = twins == null ? null : twins.get(GoJsonFolding.fold(fieldName));
            if (matches != null) {
                throw PolicyRefusal.badRequest(RefusalMessages.RULE_DUPLICATE_KEY, RefusalMessages.duplicateKey(
                        path != null ? path : parentPath + "." + fieldName, matches.get(0).key(), matches.get(1).key()));
            }
            return first;
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
