package io.rediacc.gpu.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rediacc.gpu.cli.ExitCodes;
import io.rediacc.gpu.cli.Failure;
import io.rediacc.gpu.contracts.events.EventJson;

import java.io.IOException;

/** Reads service answers with the events' JSON conventions (ISO times, unknown fields ignored). */
public final class Json {

    /**
     * Answers read as trees need no modules: a plain mapper, so a command that only reads trees
     * (machine list) does not pay for the JSR-310 module and the record deserializers at start-up.
     */
    private static final ObjectMapper TREES = new ObjectMapper();

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

    static JsonNode treeOrNull(String body) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try {
            return TREES.readTree(body);
        } catch (IOException e) {
            return null;
        }
    }

    private static Failure notJson(Reply reply) {
        return new Failure(ExitCodes.ERROR, reply.service() + " at " + reply.url() + " answered HTTP " + reply.status()
                + " with a body rdc cannot read; is that URL really " + reply.service() + "?");
    }
}
