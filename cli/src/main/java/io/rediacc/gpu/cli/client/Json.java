package io.rediacc.gpu.cli.client;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.failure.Failure;
import io.rediacc.gpu.contracts.events.EventJson;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/** Reads service answers with the events' JSON conventions (ISO times, unknown fields ignored). */
public final class Json {

    /**
     * Answers read as trees need no mapper at all: Jackson's streaming parser into Jackson's nodes, so a
     * command that only reads trees (machine list) does not build an ObjectMapper at start-up (its
     * configuration, the JSR-310 module and the record deserializers were a fifth of the command's time).
     */
    private static final JsonFactory TREES = new JsonFactory();

    private Json() {
    }

    /** The events' mapper (records, ISO times), made on first use. */
    public static ObjectMapper mapper() {
        return Events.MAPPER;
    }

    private static final class Events {
        static final ObjectMapper MAPPER = EventJson.configure(new ObjectMapper());
    }

    static JsonNode tree(Reply reply) {
        JsonNode node = treeOrNull(reply.body());
        if (node == null) {
            throw notJson(reply);
        }
        return node;
    }

    static <T> T read(Reply reply, Class<T> type) {
        try {
            return mapper().readValue(reply.body(), type);
        } catch (IOException e) {
            throw notJson(reply);
        }
    }

    /** A request body: the record as JSON with the events' conventions (absent fields left out). */
    static String write(Object body) {
        try {
            return mapper().writeValueAsString(body);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write " + body.getClass().getSimpleName() + " as JSON", e);
        }
    }

    /**
     * A tree as indented JSON, exactly as the mapper's {@code INDENT_OUTPUT} writer prints it, with the
     * streaming generator: printing {@code -o json} built the events' mapper only to walk a tree.
     */
    public static String pretty(JsonNode tree) {
        StringWriter text = new StringWriter();
        try (JsonGenerator generator = TREES.createGenerator(text).useDefaultPrettyPrinter()) {
            write(generator, tree);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return text.toString();
    }

    /** Writes a tree read from JSON (objects, arrays, strings, numbers, booleans, null), as its own serializer does. */
    private static void write(JsonGenerator generator, JsonNode node) throws IOException {
        switch (node.getNodeType()) {
            case OBJECT -> {
                generator.writeStartObject();
                for (var field : node.properties()) {
                    generator.writeFieldName(field.getKey());
                    write(generator, field.getValue());
                }
                generator.writeEndObject();
            }
            case ARRAY -> {
                generator.writeStartArray();
                for (JsonNode element : node) {
                    write(generator, element);
                }
                generator.writeEndArray();
            }
            case NULL -> generator.writeNull();
            // strings, numbers (each written as its own type) and booleans need no serializer provider
            case STRING, NUMBER, BOOLEAN -> node.serialize(generator, null);
            default -> throw new IllegalArgumentException("not a JSON value: " + node.getNodeType());
        }
    }

    static JsonNode treeOrNull(String body) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try (JsonParser parser = TREES.createParser(body)) {
            JsonNode node = parser.nextToken() == null ? null : node(parser);
            // one document, nothing after it (what ObjectMapper.readTree would refuse too)
            return node != null && parser.nextToken() == null ? node : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** The value at the parser's current token, as ObjectMapper.readTree builds it. */
    private static JsonNode node(JsonParser parser) throws IOException {
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        switch (parser.currentToken()) {
            case START_OBJECT -> {
                ObjectNode object = nodes.objectNode();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    parser.nextToken();
                    object.set(name, node(parser));
                }
                return object;
            }
            case START_ARRAY -> {
                ArrayNode array = nodes.arrayNode();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    array.add(node(parser));
                }
                return array;
            }
            case VALUE_STRING -> {
                return nodes.textNode(parser.getText());
            }
            case VALUE_NUMBER_INT -> {
                return switch (parser.getNumberType()) {
                    case INT -> nodes.numberNode(parser.getIntValue());
                    case LONG -> nodes.numberNode(parser.getLongValue());
                    default -> nodes.numberNode(parser.getBigIntegerValue());
                };
            }
            case VALUE_NUMBER_FLOAT -> {
                return nodes.numberNode(parser.getDoubleValue());
            }
            case VALUE_TRUE -> {
                return nodes.booleanNode(true);
            }
            case VALUE_FALSE -> {
                return nodes.booleanNode(false);
            }
            case VALUE_NULL -> {
                return nodes.nullNode();
            }
            default -> throw new JsonParseException(parser, "unexpected " + parser.currentToken());
        }
    }

    private static Failure notJson(Reply reply) {
        return new Failure(ExitCodes.ERROR, reply.service() + " at " + reply.url() + " answered HTTP " + reply.status()
                + " with a body rdc cannot read; is that URL really " + reply.service() + "?");
    }
}
