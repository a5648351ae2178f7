package io.rediacc.gpu.inventory.service;

import com.fasterxml.jackson.core.type.TypeReference;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.RepoInfo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/** The JSON text columns of the read model (lists and small objects stored whole, never queried). */
public final class JsonText {

    private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {
    };
    private static final TypeReference<List<RepoInfo>> REPOS = new TypeReference<>() {
    };

    private JsonText() {
    }

    public static String write(Object value) {
        return value == null ? null : EventJson.toJson(value);
    }

    public static List<String> strings(String json) {
        return read(json, STRINGS);
    }

    public static List<RepoInfo> repos(String json) {
        return read(json, REPOS);
    }

    public static MachineInventory.ToolkitState toolkit(String json) {
        return json == null ? null : EventJson.fromJson(json, MachineInventory.ToolkitState.class);
    }

    private static <T> List<T> read(String json, TypeReference<List<T>> type) {
        if (json == null || json.isBlank()) {
            return List.of();
        }
        try {
            return EventJson.mapper().readValue(json, type);
        } catch (IOException e) {
            throw new UncheckedIOException("stored JSON column is unreadable: " + e.getMessage(), e);
        }
    }
}
