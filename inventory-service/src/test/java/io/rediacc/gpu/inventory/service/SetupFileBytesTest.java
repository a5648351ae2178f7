package io.rediacc.gpu.inventory.service;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code -o json}'s source: setup's file when the record carries it intact, else the record as published. */
class SetupFileBytesTest {

    static final String FILE = "{\n  \"machine\" : \"m\",\n  \"generatedAt\" : \"2026-11-26T08:00:00Z\"\n}\n";

    static String record(String content, String sha) {
        return "{\"machine\":\"m\",\"generatedAt\":\"2026-11-29T10:00:00Z\",\"setupFile\":{\"generatedAt\":"
                + "\"2026-11-26T08:00:00Z\",\"sha256\":\"" + sha + "\",\"content\":" + quote(content) + ",\"bytes\":1}}";
    }

    static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }

    @Test
    void theFilesContentIsServedWhenItMatchesItsDigest() {
        String sha = SetupFileBytes.sha256(FILE.getBytes(StandardCharsets.UTF_8));

        assertThat(SetupFileBytes.of(record(FILE, sha))).isEqualTo(FILE);
    }

    @Test
    void contentThatDoesNotMatchItsDigestIsNotServed() {
        String sha = SetupFileBytes.sha256(FILE.getBytes(StandardCharsets.UTF_8));
        String tampered = record(FILE.replace("2026", "2020"), sha);

        assertThat(SetupFileBytes.of(tampered)).isEqualTo(tampered);
    }

    @Test
    void aRecordWithoutTheFileIsServedAsPublished() {
        String plain = "{\"machine\":\"m\",  \"generatedAt\":\"2026-11-29T10:00:00Z\"}";
        String tooBig = "{\"machine\":\"m\",\"setupFile\":{\"sha256\":\"ab\",\"bytes\":300000}}";

        assertThat(SetupFileBytes.of(plain)).isEqualTo(plain);
        assertThat(SetupFileBytes.of(tooBig)).isEqualTo(tooBig);
    }
}
