package io.rediacc.gpu.gate.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rediacc.gpu.gate.policy.JsonValue.JsonArray;
import io.rediacc.gpu.gate.policy.JsonValue.JsonBool;
import io.rediacc.gpu.gate.policy.JsonValue.JsonNumber;
import io.rediacc.gpu.gate.policy.JsonValue.JsonObject;
import io.rediacc.gpu.gate.policy.JsonValue.JsonString;
import io.rediacc.gpu.gate.policy.JsonValue.Member;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The pin step's rewrite shortcuts (issue 34) keep what they replace: {@link JsonWriter} writes, as bytes,
 * exactly what it wrote through a StringBuilder before; an object made of given members
 * ({@link JsonObject#of}) answers field lookups, folded twins included, exactly as one whose members
 * were added one by one.
 */
class JsonRewriteShortcutsTest {

    private static final List<String> BODIES = List.of(
            "{}", "[]", "\"\"", "0", "-1.5e+10", "true", "false", "null",
            "{\"a\":1,\"B\":[true,false,null,\"x\\\"y\\\\z\"],\"c\":{\"d\":\"\\u00e9\\u2028\\ud83d\\ude00\\n\\t\\u0001\\u007f\"}}",
            "{\"Labels\":{\"k\":\"v\"},\"HostConfig\":{\"Binds\":[\"/a:/b:ro\"],\"Memory\":68719476736,\"x\":1.0E-5}}",
            "[\"\\ud800\",\"\\udfff\",\"é\",\"€\",\"\\/\"]");

    @Test
    void theWriterWritesWhatTheStringBuilderWriterWrote() {
        List<String> bodies = new ArrayList<>(BODIES);
        StringBuilder big = new StringBuilder("{");
        for (int i = 0; i < 100; i++) {
            big.append(i == 0 ? "" : ",").append("\"key").append(i).append("\":\"value ").append(i).append(" ü\"");
        }
        bodies.add(big.append('}').toString());
        for (String body : bodies) {
            JsonValue tree = GoJsonReader.read(body.getBytes(StandardCharsets.UTF_8), GoJsonReader.Duplicates.REFUSE_FOLDED);
            byte[] written = JsonWriter.write(tree);
            assertThat(new String(written, StandardCharsets.US_ASCII)).as(body).isEqualTo(reference(tree));
            assertThat(JsonWriter.write(GoJsonReader.read(written, GoJsonReader.Duplicates.REFUSE_FOLDED))).isEqualTo(written);
        }
    }

    @Test
    void anObjectOfGivenMembersLooksFieldsUpAsAnAddedOne() {
        List<Member> members = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            members.add(new Member("Field" + i, new JsonNumber(Integer.toString(i))));
        }
        JsonObject given = JsonObject.of(members);
        assertThat(given.members()).isEqualTo(members);
        assertThat(given.field("field7", "field7")).isEqualTo(new JsonNumber("7"));
        assertThat(given.field("Missing", "Missing")).isNull();

        List<Member> withTwins = new ArrayList<>(members);
        withTwins.add(new Member("FIELD3", new JsonString("again")));
        JsonObject twins = JsonObject.of(withTwins);
        assertThatThrownBy(() -> twins.field("Field3", "Field3")).isInstanceOf(PolicyRefusal.class);
        assertThat(twins.field("Field4", "Field4")).isEqualTo(new JsonNumber("4"));

        JsonObject small = JsonObject.of(List.of(new Member("a", new JsonBool(true)), new Member("A", new JsonBool(false))));
        assertThatThrownBy(() -> small.field("a", "a")).isInstanceOf(PolicyRefusal.class);
        JsonObject grown = JsonObject.of(List.of(new Member("a", new JsonBool(true))));
        assertThat(grown.add(new Member("A", new JsonArray(List.of())))).hasSize(1);
    }

    @Test
    void foldedKeysFindWhatAMapOfFoldedCopiesFinds() {
        java.util.Random random = new java.util.Random(34);
        String alphabet = "aAbBkKsSzZ_-.0\u017f\u212a\u00e9\u00c9\u0130i\u0131";
        for (int round = 0; round < 200; round++) {
            FoldedKeys keys = new FoldedKeys();
            java.util.Map<String, Member> reference = new java.util.HashMap<>();
            for (int n = 0; n < 1 + random.nextInt(300); n++) {
                StringBuilder key = new StringBuilder();
                for (int k = random.nextInt(4); k >= 0; k--) {
                    key.append(alphabet.charAt(random.nextInt(alphabet.length())));
                }
                Member m = new Member(key.toString(), new JsonNumber(Integer.toString(n)));
                assertThat(keys.putIfAbsent(m, GoJsonFolding.foldedHash(m.key()))).as(m.key())
                        .isEqualTo(reference.putIfAbsent(GoJsonFolding.fold(m.key()), m));
            }
            for (int probe = 0; probe < 50; probe++) {
                String name = alphabet.substring(random.nextInt(alphabet.length())) + (probe % 2 == 0 ? "" : "x");
                assertThat(keys.get(name, GoJsonFolding.foldedHash(name))).as(name)
                        .isEqualTo(reference.get(GoJsonFolding.fold(name)));
            }
        }
    }

    @Test
    void theReaderRefusesExactlyTheObjectsWhoseKeysFoldAlikeHowEverTheKeysAreWritten() {
        // The reader hashes a plain ASCII key as it reads it and any other key after: both must agree with
        // GoJsonFolding, or a folded twin would slip through (issue 34).
        java.util.Random random = new java.util.Random(3434);
        String alphabet = "aAbBkKsSzZ_-.0\u017f\u212a\u00e9\u00c9\u0130i\u0131";
        int refused = 0;
        for (int round = 0; round < 2_000; round++) {
            int size = 1 + random.nextInt(round % 2 == 0 ? 6 : 24);
            java.util.Set<String> folded = new java.util.HashSet<>();
            boolean twins = false;
            StringBuilder body = new StringBuilder("{");
            for (int n = 0; n < size; n++) {
                StringBuilder key = new StringBuilder();
                StringBuilder written = new StringBuilder();
                for (int k = random.nextInt(3); k >= 0; k--) {
                    char c = alphabet.charAt(random.nextInt(alphabet.length()));
                    key.append(c);
                    written.append(random.nextInt(4) == 0 ? String.format("\\u%04x", (int) c) : String.valueOf(c));
                }
                twins |= !folded.add(GoJsonFolding.fold(key.toString()));
                body.append(n == 0 ? "" : ",").append('"').append(written).append("\":")
                        // every third value an object: its own keys are read between the outer key and its member
                        .append(n % 3 == 0 ? "{\"Inner" + n + "\":" + n + "}" : Integer.toString(n));
            }
            String text = body.append('}').toString();
            byte[] bytes = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            if (twins) {
                refused++;
                assertThatThrownBy(() -> GoJsonReader.read(bytes, GoJsonReader.Duplicates.REFUSE_FOLDED)).as(text)
                        .isInstanceOf(PolicyRefusal.class).hasMessageContaining("name the same field");
            } else {
                assertThat(GoJsonReader.read(bytes, GoJsonReader.Duplicates.REFUSE_FOLDED)).as(text)
                        .isInstanceOf(JsonObject.class);
            }
        }
        assertThat(refused).as("both outcomes were tried").isBetween(100, 1_900);
    }

    /** The writer as it was: a StringBuilder, String.format for escapes. */
    private static String reference(JsonValue value) {
        StringBuilder out = new StringBuilder();
        reference(value, out);
        return out.toString();
    }

    private static void reference(JsonValue value, StringBuilder out) {
        if (value instanceof JsonObject o) {
            out.append('{');
            boolean first = true;
            for (Member m : o.members()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                string(m.key(), out);
                out.append(':');
                reference(m.value(), out);
            }
            out.append('}');
        } else if (value instanceof JsonArray a) {
            out.append('[');
            for (int i = 0; i < a.elements().size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                reference(a.elements().get(i), out);
            }
            out.append(']');
        } else if (value instanceof JsonString s) {
            string(s.value(), out);
        } else if (value instanceof JsonNumber n) {
            out.append(n.text());
        } else if (value instanceof JsonBool b) {
            out.append(b.value());
        } else {
            out.append("null");
        }
    }

    private static void string(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c >= 0x20 && c < 0x7f) {
                out.append(c);
            } else {
                out.append(String.format("\\u%04x", (int) c));
            }
        }
        out.append('"');
    }
}
