package io.rediacc.gpu.contracts.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StrictJsonTest {

    private static final String GRANT = "{\"repoGuid\":\"3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43\",\"repoName\":\"train\","
            + "\"device\":\"nvidia.com/gpu=0\",\"exclusive\":false,\"grantedBy\":\"alice\",\"grantedAt\":\"2026-01-01T00:00:00Z\"}";
    private static final String SNAPSHOT = "{\"machine\":\"m1\",\"version\":3,\"updatedAt\":\"2026-01-01T00:00:00Z\",\"grants\":[" + GRANT + "]}";

    @Test
    void aWellFormedValueReadsAsWithTheEventMapper() {
        assertThat(StrictJson.readEvent(bytes(SNAPSHOT), GrantSnapshot.class))
                .isEqualTo(EventJson.fromJson(SNAPSHOT, GrantSnapshot.class));
    }

    @Test
    void unknownFieldsOfAnEventAreIgnoredAsTheEventsContractSays() {
        String withNewField = SNAPSHOT.replace("\"version\":3", "\"version\":3,\"addedLater\":{\"x\":1}");
        assertThat(StrictJson.readEvent(bytes(withNewField), GrantSnapshot.class).version()).isEqualTo(3);
    }

    @Test
    void contentAfterTheValueIsRefused() {
        assertRefused(SNAPSHOT + SNAPSHOT, "Trailing token");
        assertRefused(SNAPSHOT + " 7", "Trailing token");
        // the lenient event mapper read the first of the two
        assertThat(EventJson.fromJson(SNAPSHOT + SNAPSHOT, GrantSnapshot.class).version()).isEqualTo(3);
    }

    @Test
    void aKeyTwiceInOneObjectIsRefusedAtAnyDepth() {
        assertRefused(SNAPSHOT.replace("\"version\":3", "\"version\":3,\"version\":9"), "Duplicate field 'version'");
        assertRefused(SNAPSHOT.replace("\"exclusive\":false", "\"exclusive\":false,\"exclusive\":true"), "Duplicate field 'exclusive'");
        assertThat(EventJson.fromJson(SNAPSHOT.replace("\"version\":3", "\"version\":3,\"version\":9"), GrantSnapshot.class).version())
                .as("the lenient mapper keeps the last").isEqualTo(9);
    }

    @Test
    void aTreeWithAKeyTwiceIsRefused() {
        assertThatThrownBy(() -> StrictJson.events().readTree("{\"a\":1,\"a\":2}")).hasMessageContaining("Duplicate field 'a'");
    }

    @Test
    void aByteOrderMarkOrAnotherEncodingIsRefused() {
        byte[] utf8 = bytes(SNAPSHOT);
        byte[] bom = new byte[utf8.length + 3];
        bom[0] = (byte) 0xEF;
        bom[1] = (byte) 0xBB;
        bom[2] = (byte) 0xBF;
        System.arraycopy(utf8, 0, bom, 3, utf8.length);
        assertThatThrownBy(() -> StrictJson.readEvent(bom, GrantSnapshot.class)).hasMessageContaining("byte order mark");
        assertThatThrownBy(() -> StrictJson.events().readValue(new ByteArrayInputStream(bom), GrantSnapshot.class))
                .hasMessageContaining("byte order mark");
        assertThatThrownBy(() -> StrictJson.events().readValue("\uFEFF" + SNAPSHOT, GrantSnapshot.class))
                .hasMessageContaining("byte order mark");
        assertThatThrownBy(() -> StrictJson.readEvent(SNAPSHOT.getBytes(StandardCharsets.UTF_16BE), GrantSnapshot.class))
                .hasMessageContaining("not UTF-8");
        assertThatThrownBy(() -> StrictJson.readEvent(SNAPSHOT.getBytes(StandardCharsets.UTF_16), GrantSnapshot.class))
                .hasMessageContaining("byte order mark");
        // the lenient mapper skipped the mark
        assertThat(EventJson.fromBytes(bom, GrantSnapshot.class).version()).isEqualTo(3);
    }

    @Test
    void scalarsOfTheWrongJsonTypeAreRefused() {
        assertRefused(SNAPSHOT.replace("\"exclusive\":false", "\"exclusive\":1"), "exclusive");
        assertRefused(SNAPSHOT.replace("\"exclusive\":false", "\"exclusive\":\"true\""), "exclusive");
        assertRefused(SNAPSHOT.replace("\"version\":3", "\"version\":\"3\""), "version");
        assertRefused(SNAPSHOT.replace("\"version\":3", "\"version\":3.0"), "version");
        assertRefused(SNAPSHOT.replace("\"version\":3", "\"version\":true"), "version");
        assertRefused(SNAPSHOT.replace("\"machine\":\"m1\"", "\"machine\":7"), "machine");
        assertRefused(SNAPSHOT.replace("\"machine\":\"m1\"", "\"machine\":false"), "machine");
        assertThat(EventJson.fromJson(SNAPSHOT.replace("\"exclusive\":false", "\"exclusive\":1"), GrantSnapshot.class)
                .grants().get(0).exclusive()).as("the lenient mapper read 1 as true").isTrue();
    }

    @Test
    void aNullOrMissingPrimitiveIsRefused() {
        assertRefused(SNAPSHOT.replace("\"version\":3", "\"version\":null"), "version");
        assertRefused(SNAPSHOT.replace("\"version\":3,", ""), "version");
    }

    @Test
    void restBodiesAlsoRefuseUnknownFields() throws Exception {
        ObjectMapper rest = StrictJson.configureRestBodies(new ObjectMapper());
        assertThatThrownBy(() -> rest.readValue(GRANT.replace("\"exclusive\"", "\"exclusiv\""), Grant.class))
                .hasMessageContaining("exclusiv");
        assertThatThrownBy(() -> rest.readValue(GRANT + "{}", Grant.class)).hasMessageContaining("Trailing token");
        assertThat(rest.readValue(GRANT, Grant.class).device()).isEqualTo("nvidia.com/gpu=0");
        JsonNode tree = rest.readTree(GRANT);
        assertThat(tree.path("repoName").asText()).isEqualTo("train");
    }

    private static void assertRefused(String json, String because) {
        assertThatThrownBy(() -> StrictJson.readEvent(bytes(json), GrantSnapshot.class))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining(because);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
