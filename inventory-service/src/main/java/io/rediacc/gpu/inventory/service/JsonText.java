package io.rediacc.gpu.inventory.service;

import io.rediacc.gpu.contracts.events.EventJson;

/**
 * The JSON text columns of the read model (lists and small objects stored whole, never queried). They are
 * read back inside the statements that need them (MachineDetailQuery builds its answer's JSON around them).
 */
public final class JsonText {

    private JsonText() {
    }

    public static String write(Object value) {
        return value == null ? null : EventJson.toJson(value);
    }
}
