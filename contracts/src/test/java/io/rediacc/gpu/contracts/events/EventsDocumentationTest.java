package io.rediacc.gpu.contracts.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/EVENTS.md, the JSON Schemas and the Java records must describe the same events. */
class EventsDocumentationTest {

    private static final Pattern EXAMPLE = Pattern.compile("<!-- example: ([a-z0-9.-]+) -->\\s*```json\\n(.*?)```", Pattern.DOTALL);

    static final JsonSchemaFactory SCHEMAS = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012,
            b -> b.schemaMappers(m -> m.mapPrefix("https://rediacc.io/schemas/gpu/", "classpath:schemas/")));
    static final SchemaValidatorsConfig CONFIG = SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build();

    static JsonSchema schemaFor(Topics.TopicSpec topic) {
        return SCHEMAS.getSchema(SchemaLocation.of("classpath:" + topic.schemaResource()), CONFIG);
    }

    static Map<String, String> examples() throws IOException {
        String doc = Files.readString(Path.of("../docs/EVENTS.md"));
        Map<String, String> examples = new LinkedHashMap<>();
        Matcher m = EXAMPLE.matcher(doc);
        while (m.find()) {
            examples.put(m.group(1), m.group(2));
        }
        return examples;
    }

    @Test
    void everyTopicIsDocumentedWithAnExampleThatValidatesAgainstItsSchema() throws IOException {
        Map<String, String> examples = examples();
        assertThat(examples.keySet()).containsExactlyInAnyOrderElementsOf(Topics.ALL.stream().map(Topics.TopicSpec::name).toList());
        for (Topics.TopicSpec topic : Topics.ALL) {
            JsonNode example = EventJson.mapper().readTree(examples.get(topic.name()));
            Set<ValidationMessage> errors = schemaFor(topic).validate(example);
            assertThat(errors).as("example of %s in docs/EVENTS.md", topic.name()).isEmpty();
        }
    }

    @Test
    void theDocumentedTableMatchesTheTopicContracts() throws IOException {
        String doc = Files.readString(Path.of("../docs/EVENTS.md"));
        for (Topics.TopicSpec topic : Topics.ALL) {
            String row = "| `" + topic.name() + "` | " + topic.key() + " | " + topic.cleanupPolicy() + " | `" + topic.cloudEventType() + "` |";
            assertThat(doc).as("table row for %s", topic.name()).contains(row);
        }
    }

    @Test
    void examplesReadIntoTheRecordsAndWriteBackValid() throws IOException {
        Map<String, String> examples = examples();
        for (Topics.TopicSpec topic : Topics.ALL) {
            Object record = EventJson.fromJson(examples.get(topic.name()), topic.valueType());
            JsonNode written = EventJson.mapper().readTree(EventJson.toJson(record));
            assertThat(schemaFor(topic).validate(written)).as("record %s written back", topic.valueType().getSimpleName()).isEmpty();
            JsonNode original = EventJson.mapper().readTree(examples.get(topic.name()));
            original.fieldNames().forEachRemaining(field -> {
                if (!(original.get(field).isArray() && original.get(field).isEmpty())) {
                    assertThat(written.has(field)).as("%s keeps field %s", topic.name(), field).isTrue();
                }
            });
        }
    }

    @Test
    void schemasRefuseWhatConsumersMustNotAccept() throws IOException {
        JsonNode badName = EventJson.mapper().readTree("""
                {"machine":"m1","version":3,"grants":[{"repoGuid":"3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43",
                 "repoName":"a","device":"/dev/nvidia0","exclusive":false}]}""");
        assertThat(schemaFor(Topics.GRANTS_TOPIC).validate(badName)).isNotEmpty();
        JsonNode noVersion = EventJson.mapper().readTree("{\"machine\":\"m1\",\"grants\":[]}");
        assertThat(schemaFor(Topics.GRANTS_TOPIC).validate(noVersion)).isNotEmpty();
        JsonNode refusalWithoutReason = EventJson.mapper().readTree("""
                {"id":"x","type":"refused","machine":"m1","device":"nvidia.com/gpu=0","actor":"a","at":"2026-01-01T00:00:00Z"}""");
        assertThat(schemaFor(Topics.GRANT_EVENTS_TOPIC).validate(refusalWithoutReason)).isNotEmpty();
    }

    @Test
    void recordsBuiltInCodeValidate() throws IOException {
        Instant now = Instant.parse("2026-11-29T10:00:00Z");
        Grant g = new Grant("3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43", "gpu-a", "nvidia.com/gpu=0", true, "alice", now);
        GrantSnapshot snapshot = new GrantSnapshot("m1", 1, now, List.of(g));
        GrantEvent event = new GrantEvent("id-1", GrantEvent.Type.GRANTED, "m1", g.repoGuid(), "gpu-a", g.device(), true,
                "alice", null, 1L, now);
        GateStatus status = new GateStatus("m1", "gate-1", 1, GateStatus.SYNCED, List.of(g),
                List.of(new RepoInfo("gpu-a", g.repoGuid(), null)), 30, now);
        MachineInventory empty = new MachineInventory(MachineInventory.SCHEMA_VERSION, "m1", MachineInventory.PLATFORM_LOCAL,
                "0.1.0", now, null, null, new MachineInventory.ToolkitState("not-installed", null, null, null), null, null, null);
        assertThat(schemaFor(Topics.GRANTS_TOPIC).validate(EventJson.mapper().readTree(EventJson.toJson(snapshot)))).isEmpty();
        assertThat(schemaFor(Topics.GRANT_EVENTS_TOPIC).validate(EventJson.mapper().readTree(EventJson.toJson(event)))).isEmpty();
        assertThat(schemaFor(Topics.GATE_STATUS_TOPIC).validate(EventJson.mapper().readTree(EventJson.toJson(status)))).isEmpty();
        assertThat(schemaFor(Topics.INVENTORY_TOPIC).validate(EventJson.mapper().readTree(EventJson.toJson(empty)))).isEmpty();
        assertThat(EventJson.toJson(event)).contains("\"type\":\"granted\"");
        GrantEvent expired = new GrantEvent("id-2", GrantEvent.Type.EXPIRED, "m1", g.repoGuid(), "gpu-a", g.device(), false,
                "grant-service (expiry)", "expired at " + now, 2L, now, "ticket-123", now);
        assertThat(schemaFor(Topics.GRANT_EVENTS_TOPIC).validate(EventJson.mapper().readTree(EventJson.toJson(expired)))).isEmpty();
        assertThat(EventJson.toJson(expired)).contains("\"type\":\"expired\"").contains("\"requestReason\":\"ticket-123\"");
    }

    @Test
    void aLoadingGateWithoutSyncedAtIsValidButASyncedOneMustSayWhen() throws IOException {
        GateStatus loading = new GateStatus("m1", "gate-1", 0, GateStatus.LOADING, List.of(), List.of(), 30, null);
        JsonNode loadingJson = EventJson.mapper().readTree(EventJson.toJson(loading));
        assertThat(loadingJson.has("syncedAt")).isFalse();
        assertThat(schemaFor(Topics.GATE_STATUS_TOPIC).validate(loadingJson)).isEmpty();
        GateStatus synced = new GateStatus("m1", "gate-1", 0, GateStatus.SYNCED, List.of(), List.of(), 30, null);
        assertThat(schemaFor(Topics.GATE_STATUS_TOPIC).validate(EventJson.mapper().readTree(EventJson.toJson(synced))))
                .as("a synced gate status without syncedAt").isNotEmpty();
    }

    @Test
    void everyRecordNamesItsSchemaInCeDataschemaByTheSchemasOwnId() throws IOException {
        for (Topics.TopicSpec topic : Topics.ALL) {
            Map<String, byte[]> headers = CloudEventHeaders.of(topic, "/test", "m1");
            String dataSchema = new String(headers.get(CloudEventHeaders.DATA_SCHEMA), java.nio.charset.StandardCharsets.UTF_8);
            JsonNode schema = EventJson.mapper().readTree(getClass().getClassLoader().getResource(topic.schemaResource()));
            assertThat(dataSchema).as(topic.name()).isEqualTo(schema.get("$id").asText());
            assertThat(SCHEMAS.getSchema(SchemaLocation.of(dataSchema), CONFIG).validate(
                    EventJson.mapper().readTree(examples().get(topic.name())))).as("example of %s by its ce_dataschema", topic.name()).isEmpty();
        }
    }
}
