package io.rediacc.gpu.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rediacc.gpu.cli.ExitCodes;
import io.rediacc.gpu.cli.Failure;
import io.rediacc.gpu.contracts.events.EventJson;

import java.io.IOException;

/** Reads service answers with the events' JSON conventions (ISO times, unknown fields ignored). */
public final class Json {

    private static final ObjectMapper MAPPER = EventJson.configure(new ObjectMapper());

    private Json() {
    }

    public static ObjectMapper mapper() {
        return MAPPER;
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
            return MAPPER.readValue(reply.body(), type);
        } catch (IOException e) {
            throw notJson(reply);
        }
    }

    static JsonNode treeOrNull(String body) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try {
            return MAPPER.readTree(body);
        } catch (IOException e) {
            return null;
        }
    }

    private static Failure notJson(Reply reply) {
        return new Failure(ExitCodes.ERROR, reply.service() + " at " + reply.url() + " answered HTTP " + reply.status()
                + " with a body rdc cannot read; is that URL really " + reply.service() + "?");
    }
}
