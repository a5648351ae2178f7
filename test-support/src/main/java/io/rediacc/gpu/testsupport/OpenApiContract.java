package io.rediacc.gpu.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A service's OpenAPI document as a contract its real answers must keep: each answer's status is
 * documented for its operation, and its body validates (JSON Schema 2020-12, networknt) against the
 * schema documented for that status, {@code $ref}s to {@code components} included.
 */
public final class OpenApiContract {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonSchemaFactory SCHEMAS = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);
    private static final SchemaValidatorsConfig CONFIG = SchemaValidatorsConfig.builder().build();

    private final JsonNode document;

    private OpenApiContract(JsonNode document) {
        this.document = document;
    }

    /** The contract of an OpenAPI document in JSON ({@code /q/openapi?format=json}). */
    public static OpenApiContract of(String openApiJson) {
        try {
            return new OpenApiContract(JSON.readTree(openApiJson));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public JsonNode document() {
        return document;
    }

    /** Every operation as {@code METHOD path}, e.g. {@code GET /api/v1/machines}. */
    public List<String> operations() {
        List<String> operations = new ArrayList<>();
        document.path("paths").fields().forEachRemaining(path -> path.getValue().fieldNames().forEachRemaining(method -> {
            if (Set.of("get", "put", "post", "delete", "patch", "head").contains(method)) {
                operations.add(method.toUpperCase(Locale.ROOT) + " " + path.getKey());
            }
        }));
        return operations;
    }

    /** The operation object of {@code METHOD path}. */
    public JsonNode operation(String method, String pathTemplate) {
        JsonNode operation = document.path("paths").path(pathTemplate).path(method.toLowerCase(Locale.ROOT));
        if (operation.isMissingNode()) {
            throw new AssertionError("the OpenAPI document has no operation " + method + " " + pathTemplate);
        }
        return operation;
    }

    /**
     * What is wrong with {@code body} as the answer {@code status} of {@code METHOD path}: an undocumented
     * status, a documented one without a JSON schema, or the schema's validation messages; empty when it fits.
     */
    public List<String> violations(String method, String pathTemplate, int status, String body) {
        JsonNode response = operation(method, pathTemplate).path("responses").path(Integer.toString(status));
        String where = method + " " + pathTemplate + " " + status;
        if (response.isMissingNode()) {
            return List.of(where + ": status not documented for this operation");
        }
        JsonNode content = response.path("content");
        if (body == null || body.isEmpty()) {
            return List.of();
        }
        Iterator<JsonNode> media = content.elements();
        if (!media.hasNext()) {
            return List.of(where + ": an answer with a body, but no content documented");
        }
        JsonNode schemaNode = media.next().path("schema");
        if (schemaNode.isMissingNode()) {
            return List.of(where + ": no schema documented");
        }
        ObjectNode rooted = schemaNode.deepCopy();
        rooted.set("components", document.path("components"));
        JsonSchema schema = SCHEMAS.getSchema(rooted, CONFIG);
        try {
            Set<ValidationMessage> messages = schema.validate(JSON.readTree(body));
            return messages.stream().map(m -> where + ": " + m.getMessage()).sorted().toList();
        } catch (IOException e) {
            return List.of(where + ": the body is not JSON: " + e.getMessage());
        }
    }

    /** The media types documented for {@code status} of {@code METHOD path}. */
    public List<String> mediaTypes(String method, String pathTemplate, int status) {
        List<String> types = new ArrayList<>();
        operation(method, pathTemplate).path("responses").path(Integer.toString(status)).path("content")
                .fieldNames().forEachRemaining(types::add);
        return types;
    }
}
