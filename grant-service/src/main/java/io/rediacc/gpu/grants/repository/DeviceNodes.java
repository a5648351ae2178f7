package io.rediacc.gpu.grants.repository;

import com.fasterxml.jackson.core.type.TypeReference;
import io.rediacc.gpu.contracts.events.EventJson;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/** The JSON form of a device's node list in {@code machine_devices.device_nodes}. */
public final class DeviceNodes {

    private static final TypeReference<List<String>> LIST = new TypeReference<>() {
    };

    private DeviceNodes() {
    }

    public static String toJson(List<String> nodes) {
        return EventJson.toJson(nodes == null ? List.of() : nodes);
    }

    public static List<String> fromJson(String json) {
        try {
            return EventJson.mapper().readValue(json, LIST);
        } catch (IOException e) {
            throw new UncheckedIOException("device_nodes is not a JSON list of strings: " + e.getMessage(), e);
        }
    }
}
