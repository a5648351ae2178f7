package io.rediacc.gpu.gate.policy;

import static io.rediacc.gpu.gate.policy.PolicyTestKit.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rediacc.gpu.gate.policy.GoJsonReader.Duplicates;
import io.rediacc.gpu.gate.policy.JsonValue.JsonArray;
import io.rediacc.gpu.gate.policy.JsonValue.JsonNumber;
import io.rediacc.gpu.gate.policy.JsonValue.JsonObject;
import io.rediacc.gpu.gate.policy.JsonValue.JsonString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The strict reader: what it accepts it reads as Go does; the rest is a 400 that says where. */
class GoJsonReaderTest {

    private static JsonValue read(String json) {
        return GoJsonReader.read(utf8(json), Duplicates.REFUSE_FOLDED);
    }

    private static String stringField(String json, String field) {
        JsonObject o = (JsonObject) read(json);
        return ((JsonString) o.field(field, field)).value();
    }

    @Test
    void keysAreDecodedBeforeMatching() {
        JsonObject o = (JsonObject) read("{\"\\u0048ost\\u0043onfig\":{}}");
        assertThat(o.field("HostConfig", "HostConfig")).isInstanceOf(JsonObject.class);
    }

    @Test
    void fieldLookupFoldsCaseLikeGo() {
        JsonObject o = (JsonObject) read("{\"pRiViLeGeD\":true}");
        assertThat(o.field("Privileged", "Privileged")).isEqualTo(new JsonValue.JsonBool(true));
    }

    @Test
    void escapesInStringsDecodeLikeGo() {
        assertThat(stringField("{\"a\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\"}", "a"))
                .isEqualTo("\"\\/\b\f\n\r\té\uD83D\uDE00");
    }

    @Test
    void loneSurrogateEscapesBecomeReplacementCharactersLikeGo() {
        assertThat(stringField("{\"a\":\"\\ud800x\"}", "a")).isEqualTo("\uFFFDx");
        assertThat(stringField("{\"a\":\"\\udc00\"}", "a")).isEqualTo("\uFFFD");
        assertThat(stringField("{\"a\":\"\\ud800\\u0041\"}", "a")).isEqualTo("\uFFFDA");
    }

    @Test
    void multiByteUtf8IsDecoded() {
        assertThat(stringField("{\"a\":\"ſ\u212A\uD83D\uDE00\"}", "a")).isEqualTo("ſ\u212A\uD83D\uDE00");
    }

    @Test
    void numbersKeepTheirText() {
        JsonObject o = (JsonObject) read("{\"a\":-0.5e+10,\"b\":[0,-1,12]}");
        assertThat(o.field("a", "a")).isEqualTo(new JsonNumber("-0.5e+10"));
        assertThat(((JsonArray) o.field("b", "b")).elements()).containsExactly(new JsonNumber("0"), new JsonNumber("-1"), new JsonNumber("12"));
    }

    @Test
    void whitespaceAroundTheDocumentIsAllowed() {
        assertThat(read(" \t\r\n{} \n")).isInstanceOf(JsonObject.class);
    }

    @Test
    void foldedTwinKeysAreAllowedWhenOnlyExactDuplicatesAreRefused() {
        JsonObject o = (JsonObject) GoJsonReader.read(utf8("{\"Labels\":{\"a\":\"1\",\"A\":\"2\"}}"), Duplicates.REFUSE_EXACT);
        assertThat(((JsonObject) o.field("Labels", "Labels")).members()).hasSize(2);
    }

    @Test
    void foldedTwinFieldIsAmbiguousWhenLookedUp() {
        JsonObject o = (JsonObject) GoJsonReader.read(utf8("{\"Privileged\":false,\"privileged\":true}"), Duplicates.REFUSE_EXACT);
        assertThatThrownBy(() -> o.field("Privileged", "HostConfig.Privileged"))
                .isInstanceOfSatisfying(PolicyRefusal.class, e -> assertThat(e.refusal().rule()).isEqualTo("body-duplicate-key"));
    }

    @Test
    void exactDuplicatesAreRefusedInEitherMode() {
        assertThatThrownBy(() -> GoJsonReader.read(utf8("{\"a\":1,\"a\":1}"), Duplicates.REFUSE_EXACT))
                .isInstanceOf(PolicyRefusal.class);
    }

    @Test
    void refusalSaysWhatIsWrongAndWhere() {
        assertThatThrownBy(() -> read("{\"a\":tru}"))
                .isInstanceOfSatisfying(PolicyRefusal.class, e -> {
                    assertThat(e.refusal().status()).isEqualTo(400);
                    assertThat(e.refusal().message()).contains("invalid literal").contains("at byte 5");
                });
    }

    @Test
    void duplicateRefusalNamesBothSpellings() {
        assertThatThrownBy(() -> read("{\"HostConfig\":{\"Privileged\":false,\"PRIVILEGED\":true}}"))
                .isInstanceOfSatisfying(PolicyRefusal.class, e -> assertThat(e.refusal().message())
                        .contains("\"Privileged\" and \"PRIVILEGED\" in HostConfig"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"", "{", "}", "{\"a\"}", "{\"a\":}", "{,}", "[1 2]", "[1,]", "{\"a\":1 \"b\":2}", "-", "1.", ".5", "1e", "01",
            "\"abc", "\"\\u12\"", "\"\\u12G4\"", "nul", "truex", "{}x", "{} {}", "\u00a0{}", "{\"a\":\"\u0001\"}", "//\n{}", "#\n{}"})
    void malformedJsonIsRefused(String json) {
        assertThatThrownBy(() -> read(json)).isInstanceOfSatisfying(PolicyRefusal.class,
                e -> assertThat(e.refusal().rule()).isEqualTo("body-not-json"));
    }
}
