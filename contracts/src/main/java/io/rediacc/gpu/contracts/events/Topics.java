package io.rediacc.gpu.contracts.events;

import java.util.List;

/**
 * The five topics of the product, their keys, cleanup policies and CloudEvents types. Every
 * service names topics through these constants; {@code docs/EVENTS.md} describes them.
 */
public final class Topics {

    public static final String INVENTORY = "gpu.inventory.v1";
    public static final String GRANTS = "gpu.grants.v1";
    public static final String GRANT_EVENTS = "gpu.grant-events.v1";
    public static final String GATE_STATUS = "gpu.gate-status.v1";
    public static final String GATE_DECISIONS = "gpu.gate-decisions.v1";

    /** Where the schemas' {@code $id}s live; {@code contracts/src/main/resources/schemas/} holds the files. */
    public static final String SCHEMA_BASE = "https://rediacc.io/schemas/gpu/";

    /** One topic's contract. {@code cleanupPolicy} is Kafka's {@code cleanup.policy} value. */
    public record TopicSpec(String name, String key, String cleanupPolicy, String cloudEventType, Class<?> valueType) {
        public boolean compacted() {
            return "compact".equals(cleanupPolicy);
        }

        /**
         * The {@code $id} of the value's JSON Schema, sent as {@code ce_dataschema}: the schema file
         * ({@link #schemaResource()}) under {@value #SCHEMA_BASE}.
         */
        public String dataSchema() {
            return SCHEMA_BASE + schemaResource().substring("schemas/".length());
        }

        /** Classpath resource of the value's JSON Schema. */
        public String schemaResource() {
            return switch (name) {
                case INVENTORY -> "schemas/machine-inventory.schema.json";
                case GRANTS -> "schemas/grant-snapshot.schema.json";
                case GRANT_EVENTS -> "schemas/grant-event.schema.json";
                case GATE_STATUS -> "schemas/gate-status.schema.json";
                case GATE_DECISIONS -> "schemas/gate-decision.schema.json";
                default -> throw new IllegalStateException("no schema for " + name);
            };
        }
    }

    public static final TopicSpec INVENTORY_TOPIC = new TopicSpec(INVENTORY, "machine", "compact",
            "io.rediacc.gpu.inventory.v1", MachineInventory.class);
    public static final TopicSpec GRANTS_TOPIC = new TopicSpec(GRANTS, "machine", "compact",
            "io.rediacc.gpu.grants.v1", GrantSnapshot.class);
    public static final TopicSpec GRANT_EVENTS_TOPIC = new TopicSpec(GRANT_EVENTS, "machine", "delete",
            "io.rediacc.gpu.grant-event.v1", GrantEvent.class);
    public static final TopicSpec GATE_STATUS_TOPIC = new TopicSpec(GATE_STATUS, "machine/gateId", "compact",
            "io.rediacc.gpu.gate-status.v1", GateStatus.class);
    public static final TopicSpec GATE_DECISIONS_TOPIC = new TopicSpec(GATE_DECISIONS, "machine", "delete",
            "io.rediacc.gpu.gate-decision.v1", GateDecision.class);

    public static final List<TopicSpec> ALL = List.of(INVENTORY_TOPIC, GRANTS_TOPIC, GRANT_EVENTS_TOPIC,
            GATE_STATUS_TOPIC, GATE_DECISIONS_TOPIC);

    private Topics() {
    }

    public static TopicSpec byName(String name) {
        return ALL.stream().filter(t -> t.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown topic " + name));
    }

    /** Key of a gate-status record: one compacted slot per gate of a machine. */
    public static String gateStatusKey(String machine, String gateId) {
        return machine + "/" + gateId;
    }
}
